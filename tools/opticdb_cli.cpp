// opticdb: the native shell.
//
//   opticdb [--relaxed] [DATABASE] [FILE.sql]
//
// DATABASE (any argument not ending in .sql, e.g. app.odb) opens a persistent file database,
// created when absent: tables default to the `store` module and every commit is on disk
// (fsync'd unless --relaxed) before the next statement runs. Without it the database is in
// memory. Reads SQL from FILE.sql or stdin. On a terminal it prompts (`opticdb> `, continuation `   ...> `)
// and runs input as soon as it ends with a complete statement; `.quit` / `.exit` leave. Each
// statement runs on its own (prepare, step to the end), so one failing statement does not stop
// the rest: its error is printed as `Error: <message>` plus ` (line L, column C)` when the
// engine gives a position, with positions relative to the whole input. Result rows print as an
// aligned table with the column names; NULL prints as `NULL`.
//
// Ctrl-C (SIGINT) interrupts the running statement (`Error: interrupted`, rolled back as a
// failing statement is) instead of killing the shell; a script stops there (exit status 130).
// At the prompt it does nothing: leave with `.quit`, `.exit` or end of input (Ctrl-D).
//
// Statements are split at `;` outside string literals, quoted identifiers, comments and
// `{ … }` bodies (declarative schema blocks hold `;` of their own). Exit status for a script:
// 0 when every statement succeeded, 1 otherwise.
//
// Uses only core/api/database.h and the value helpers of core/common/value_ops.h.
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "core/api/database.h"
#include "core/api/error_report.h"
#include "core/common/value_ops.h"

namespace optic::cli {
namespace {

// What the SIGINT handler reaches: a signal handler has no argument, so the shell's one database
// is published here while it is open.
std::atomic<Database*> interruptTarget{nullptr};
volatile std::sig_atomic_t interruptsSeen = 0;

extern "C" void onInterruptSignal(int) {
  interruptsSeen = 1;
  if (Database* db = interruptTarget.load()) db->interrupt();  // an atomic store: signal-safe
}

// Ctrl-C interrupts the running statement of `db` for as long as this lives.
class InterruptOnSigint {
 public:
  explicit InterruptOnSigint(Database& db) {
    interruptTarget.store(&db);
    struct sigaction sa {};
    sa.sa_handler = onInterruptSignal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;  // a Ctrl-C at the prompt leaves the read going
    sigaction(SIGINT, &sa, &previous_);
  }
  ~InterruptOnSigint() {
    sigaction(SIGINT, &previous_, nullptr);
    interruptTarget.store(nullptr);
  }
  InterruptOnSigint(const InterruptOnSigint&) = delete;
  InterruptOnSigint& operator=(const InterruptOnSigint&) = delete;

 private:
  struct sigaction previous_ {};
};

// One statement of the input and where it starts (1-based), for error positions.
struct SqlPiece {
  std::string text;
  int line = 1;
  int column = 1;
};

// Splits SQL text into statements. Tracks quotes, comments and brace depth so `;` inside them
// does not end a statement. `rest` receives the trailing text that has code, or is inside an
// open quote/comment/body, but has no closing `;`.
class StatementSplitter {
 public:
  std::vector<SqlPiece> split(std::string_view sql, SqlPiece* rest) {
    std::vector<SqlPiece> out;
    for (pos_ = 0; pos_ < sql.size();) {
      char c = sql[pos_];
      if (state_ == State::kCode && c == ';' && braceDepth_ == 0) {
        if (hasCode_) out.push_back(current_);
        advance(sql);
        resetPiece();
        continue;
      }
      step(sql);
    }
    if (rest) *rest = hasCode_ || midStatement() ? current_ : SqlPiece{};
    return out;
  }

  // True when the text ended inside a quote, a block comment or a `{ … }` body.
  bool midStatement() const {
    return (state_ != State::kCode && state_ != State::kLineComment) || braceDepth_ > 0;
  }

 private:
  enum class State { kCode, kSingle, kDouble, kBacktick, kBracket, kLineComment, kBlockComment };

  void resetPiece() {
    current_ = SqlPiece{"", line_, column_};
    hasCode_ = false;
  }

  // Consumes one byte, keeping line/column (columns count UTF-8 code points).
  void advance(std::string_view sql) {
    char c = sql[pos_++];
    if (c == '\n') {
      ++line_;
      column_ = 1;
    } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
      ++column_;
    }
  }

  void append(std::string_view sql) {
    if (!hasCode_ && current_.text.empty() && isSpace(sql[pos_])) {
      advance(sql);  // leading whitespace is not part of the statement
      current_.line = line_;
      current_.column = column_;
      return;
    }
    current_.text += sql[pos_];
    advance(sql);
  }

  static bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

  char peekNext(std::string_view sql) const { return pos_ + 1 < sql.size() ? sql[pos_ + 1] : '\0'; }

  void step(std::string_view sql) {
    char c = sql[pos_];
    switch (state_) {
      case State::kCode: return stepCode(sql, c);
      case State::kSingle: closeOn(sql, c, '\''); return;
      case State::kDouble: closeOn(sql, c, '"'); return;
      case State::kBacktick: closeOn(sql, c, '`'); return;
      case State::kBracket: closeOn(sql, c, ']'); return;
      case State::kLineComment:
        if (c == '\n') state_ = State::kCode;
        append(sql);
        return;
      case State::kBlockComment:
        if (c == '*' && peekNext(sql) == '/') {
          append(sql);
          state_ = State::kCode;
        }
        append(sql);
        return;
    }
  }

  // Inside a quoted token: the closing quote ends it (a doubled quote re-opens at once).
  void closeOn(std::string_view sql, char c, char quote) {
    if (c == quote) state_ = State::kCode;
    append(sql);
  }

  void stepCode(std::string_view sql, char c) {
    if (c == '-' && peekNext(sql) == '-') {
      state_ = State::kLineComment;
    } else if (c == '/' && peekNext(sql) == '*') {
      state_ = State::kBlockComment;
      append(sql);  // consume "/*" whole so "/*/" does not close it
    } else {
      if (!isSpace(c)) hasCode_ = true;
      if (c == '\'') state_ = State::kSingle;
      else if (c == '"') state_ = State::kDouble;
      else if (c == '`') state_ = State::kBacktick;
      else if (c == '[') state_ = State::kBracket;
      else if (c == '{') ++braceDepth_;
      else if (c == '}' && braceDepth_ > 0) --braceDepth_;
    }
    append(sql);
  }

  State state_ = State::kCode;
  int braceDepth_ = 0;
  size_t pos_ = 0;
  int line_ = 1;
  int column_ = 1;
  SqlPiece current_;
  bool hasCode_ = false;
};

// --- result table ---------------------------------------------------------------------------

size_t displayWidth(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

std::string cellText(const Value& v) { return v.isNull() ? "NULL" : toText(v); }

std::string pad(const std::string& s, size_t width, bool right) {
  std::string fill(width - std::min(width, displayWidth(s)), ' ');
  return right ? fill + s : s + fill;
}

void printTable(std::ostream& out, const std::vector<std::string>& names, const std::vector<Row>& rows) {
  std::vector<size_t> widths;
  for (const std::string& n : names) widths.push_back(displayWidth(n));
  std::vector<std::vector<std::string>> cells;
  for (const Row& row : rows) {
    std::vector<std::string> line;
    for (size_t i = 0; i < row.size(); ++i) {
      line.push_back(cellText(row[i]));
      if (i >= widths.size()) widths.push_back(0);
      widths[i] = std::max(widths[i], displayWidth(line.back()));
    }
    cells.push_back(std::move(line));
  }
  std::string rule = "+";
  for (size_t w : widths) rule += std::string(w + 2, '-') + "+";
  auto printLine = [&](const std::vector<std::string>& line, const Row* values) {
    out << "|";
    for (size_t i = 0; i < widths.size(); ++i) {
      std::string s = i < line.size() ? line[i] : "";
      bool right = values && i < values->size() && (*values)[i].isNumeric();
      out << " " << pad(s, widths[i], right) << " |";
    }
    out << "\n";
  };
  out << rule << "\n";
  printLine(names, nullptr);
  out << rule << "\n";
  for (size_t r = 0; r < rows.size(); ++r) printLine(cells[r], &rows[r]);
  out << rule << "\n";
}

// --- running ----------------------------------------------------------------------------------

// The parser appends its own statement-relative " (at line L, column C)" to syntax messages;
// the shell reports the input-relative position instead, so that suffix is dropped.
std::string withoutEnginePosition(const std::string& message, int line, int column) {
  std::string suffix = " (at line " + std::to_string(line) + ", column " + std::to_string(column) + ")";
  bool has = message.size() >= suffix.size() && message.compare(message.size() - suffix.size(), suffix.size(), suffix) == 0;
  return has ? message.substr(0, message.size() - suffix.size()) : message;
}

// The engine's position is relative to the statement text; report it relative to the input.
void printError(const std::string& message, int line, int column, const SqlPiece& piece) {
  std::cout.flush();
  std::cerr << "Error: " << (line > 0 ? withoutEnginePosition(message, line, column) : message);
  if (line > 0) {
    int absLine = piece.line + line - 1;
    int absColumn = line == 1 && column > 0 ? piece.column + column - 1 : column;
    std::cerr << " (line " << absLine;
    if (absColumn > 0) std::cerr << ", column " << absColumn;
    std::cerr << ")";
  }
  std::cerr << "\n";
}

// Runs one statement and prints its rows; false when it failed.
bool runStatement(Database& db, const SqlPiece& piece) {
  try {
    std::unique_ptr<Statement> stmt = db.prepare(piece.text);
    std::vector<Row> rows;
    while (stmt->step()) rows.push_back(stmt->row());
    std::vector<std::string> names = stmt->columnNames();
    if (!names.empty()) printTable(std::cout, names, rows);
    std::cout.flush();
    return true;
  } catch (const Error& e) {
    printError(e.what(), e.line(), e.column(), piece);
  } catch (...) {
    printError(reportCurrentException().message, 0, 0, piece);  // out of memory, or a bug
  }
  return false;
}

int runScript(Database& db, const std::string& text) {
  SqlPiece rest;
  std::vector<SqlPiece> pieces = StatementSplitter().split(text, &rest);
  if (!rest.text.empty()) pieces.push_back(rest);  // a last statement may omit its ';'
  bool ok = true;
  interruptsSeen = 0;
  for (const SqlPiece& p : pieces) {
    ok = runStatement(db, p) && ok;
    if (interruptsSeen) return 130;  // Ctrl-C ends the script, as it would a shell's
  }
  return ok ? 0 : 1;
}

bool isQuitCommand(std::string_view line) {
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.remove_suffix(1);
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  return line == ".quit" || line == ".exit";
}

// The prompt loop: accumulate lines; once the buffer holds complete statements, run them and
// keep only the unfinished remainder. Positions are relative to the pending buffer.
int runInteractive(Database& db) {
  std::string buffer;
  std::string line;
  for (;;) {
    std::cout << (buffer.empty() ? "opticdb> " : "   ...> ") << std::flush;
    if (!std::getline(std::cin, line)) break;
    if (buffer.empty() && isQuitCommand(line)) break;
    buffer += line;
    buffer += '\n';
    SqlPiece rest;
    std::vector<SqlPiece> pieces = StatementSplitter().split(buffer, &rest);
    interruptsSeen = 0;
    for (const SqlPiece& p : pieces) {
      runStatement(db, p);
      if (interruptsSeen) break;  // the rest of what was typed with it is dropped too
    }
    buffer = rest.text;  // keep only an unfinished statement (or an open quote/comment/body)
  }
  std::cout << "\n";
  return 0;
}

bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

int mainImpl(int argc, char** argv) {
  DatabaseOptions options;
  std::string script;
  bool usage = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--relaxed") options.durability = Durability::kRelaxed;
    else if (a == "-h" || a == "--help" || (!a.empty() && a[0] == '-')) usage = true;
    else if (endsWith(a, ".sql") && script.empty()) script = a;
    else if (options.path.empty()) options.path = a;
    else usage = true;
  }
  if (usage) {
    std::cerr << "usage: opticdb [--relaxed] [DATABASE] [FILE.sql]\n"
                 "  DATABASE  a file database (created when absent; e.g. app.odb); none: in memory\n"
                 "  FILE.sql  run this script (else stdin; interactive on a terminal)\n"
                 "  --relaxed no fsync per commit (a power loss may lose the latest commits)\n";
    return 2;
  }
  if (!options.path.empty()) options.storage = Storage::kFile;
  std::unique_ptr<Database> db;
  try {
    db = std::make_unique<Database>(options);
  } catch (const Error& e) {
    std::cerr << "opticdb: " << e.what() << "\n";
    return 2;
  }
  for (const std::string& e : db->loadErrors()) std::cerr << "opticdb: skipped catalog entry " << e << "\n";
  int rc = 0;
  InterruptOnSigint sigint(*db);
  if (!script.empty()) {
    std::ifstream in(script, std::ios::binary);
    if (!in) {
      std::cerr << "opticdb: cannot open " << script << "\n";
      return 2;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    rc = runScript(*db, ss.str());
  } else if (::isatty(STDIN_FILENO)) {
    rc = runInteractive(*db);
  } else {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    rc = runScript(*db, ss.str());
  }
  // A clean shutdown: the next open adopts the stored materialized-view rows.
  try {
    db->close();
  } catch (const Error& e) {
    std::cerr << "opticdb: " << e.what() << "\n";
    return 1;
  }
  return rc;
}

}  // namespace
}  // namespace optic::cli

int main(int argc, char** argv) { return optic::cli::mainImpl(argc, argv); }
