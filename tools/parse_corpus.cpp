// parse_corpus: runs the parser over .sqllogic conformance files (no execution).
//
// Splits each file into blocks exactly as the reference runner does (test-corpus.md §1):
// setup blocks (`-- run`, end of file) parse as one text; result (`→`) and error (`-- error:`)
// blocks are split naively on ';'. Reports every non-error block that fails to parse (these
// are parser bugs) and every error block whose failure is a syntax error, with the expected
// substring and whether our message contains it. With --roundtrip, also checks that the
// canonical text (printSelect) of every SELECT re-parses to itself.
// Usage: parse_corpus [--roundtrip] FILE_OR_DIR…
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "core/common/error.h"
#include "core/parser/parser.h"
#include "core/parser/printer.h"

namespace {

enum class BlockKind { kSetup, kResult, kError };

struct Block {
  BlockKind kind;
  std::string sql;
  std::string expectedError;
  int line;  // line of the terminating marker (or end of file)
};

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::string lowerCopy(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<Block> splitBlocks(std::istream& in) {
  std::vector<Block> blocks;
  std::string sql, raw;
  int lineNo = 0;
  auto flush = [&](BlockKind kind, std::string expected) {
    if (!trim(sql).empty()) blocks.push_back(Block{kind, sql, std::move(expected), lineNo});
    sql.clear();
  };
  while (std::getline(in, raw)) {
    ++lineNo;
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    std::string s = trim(raw);
    if (s.empty()) continue;
    if (s.rfind("--", 0) == 0) {
      std::string l = lowerCopy(s);
      if (l.rfind("-- error:", 0) == 0) flush(BlockKind::kError, trim(s.substr(9)));
      else if (l == "-- run") flush(BlockKind::kSetup, "");
      continue;
    }
    if (s.rfind("\xE2\x86\x92", 0) == 0) {  // →
      flush(BlockKind::kResult, "");
      continue;
    }
    size_t cut = raw.find("--");
    std::string rest = cut == std::string::npos ? raw : raw.substr(0, cut);
    if (!trim(rest).empty()) sql += rest + "\n";
  }
  flush(BlockKind::kSetup, "");
  return blocks;
}

std::vector<std::string> splitStatements(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string part;
  while (std::getline(ss, part, ';')) {
    std::string t = trim(part);
    if (!t.empty()) out.push_back(t);
  }
  return out;
}

struct Totals {
  int files = 0, blocks = 0, badParses = 0, errorBlocks = 0, syntaxErrors = 0, syntaxMismatch = 0;
  int missedSyntax = 0;  // error blocks expecting a parser-style message that parse fine
};

// Heuristic: expectations worded like the reference parser's messages.
bool looksLikeParserMessage(const std::string& expected) {
  std::string l = lowerCopy(expected);
  return l.rfind("expected", 0) == 0 || l.rfind("unexpected", 0) == 0 ||
         l.rfind("unterminated", 0) == 0;
}

bool gRoundTrip = false;  // --roundtrip: re-parse printSelect() of every parsed SELECT

// Checks that the canonical text of each SELECT statement parses back to the same text.
void checkRoundTrip(const std::vector<optic::ast::StatementPtr>& stmts) {
  for (const auto& st : stmts) {
    if (st->kind != optic::ast::StatementKind::kSelect) continue;
    std::string printed = optic::printSelect(*st->select);
    try {
      auto again = optic::parseSql(printed);
      std::string second = optic::printSelect(*again.at(0)->select);
      if (second != printed) std::cout << "ROUNDTRIP DIFF\n    " << printed << "\n    " << second << "\n";
    } catch (const optic::Error& e) {
      std::cout << "ROUNDTRIP FAIL " << e.what() << "\n    " << st->text << "\n    " << printed << "\n";
    }
  }
}

// Parses one text; returns "" on success, else the syntax error message.
std::string tryParse(const std::string& sql, bool* isSyntax) {
  try {
    auto stmts = optic::parseSql(sql);
    if (gRoundTrip) checkRoundTrip(stmts);
    return "";
  } catch (const optic::Error& e) {
    *isSyntax = e.code() == optic::ErrorCode::kSyntax;
    return std::string(e.what()).empty() ? "(empty message)" : e.what();
  }
}

void checkFile(const std::filesystem::path& path, Totals& totals) {
  std::ifstream in(path);
  ++totals.files;
  for (const Block& b : splitBlocks(in)) {
    ++totals.blocks;
    std::vector<std::string> texts;
    if (b.kind == BlockKind::kSetup) texts.push_back(b.sql);
    else texts = splitStatements(b.sql);
    if (b.kind == BlockKind::kError) ++totals.errorBlocks;
    bool failed = false;
    for (const std::string& text : texts) {
      bool syntax = false;
      std::string err = tryParse(text, &syntax);
      if (err.empty()) continue;
      failed = true;
      if (b.kind != BlockKind::kError) {
        ++totals.badParses;
        std::cout << "PARSE FAIL " << path.filename().string() << ":" << b.line << ": " << err
                  << "\n    " << text.substr(0, 300) << "\n";
      } else {
        ++totals.syntaxErrors;
        bool match = lowerCopy(err).find(lowerCopy(b.expectedError)) != std::string::npos;
        if (!match) ++totals.syntaxMismatch;
        std::cout << (match ? "SYNTAX OK  " : "SYNTAX BAD ") << path.filename().string() << ":"
                  << b.line << ": expected '" << b.expectedError << "' got '" << err << "'\n";
      }
      break;  // the first failing statement ends the block, as in the runner
    }
    if (b.kind == BlockKind::kError && !failed && looksLikeParserMessage(b.expectedError)) {
      ++totals.missedSyntax;
      std::cout << "MISSED     " << path.filename().string() << ":" << b.line << ": expected '"
                << b.expectedError << "' but the block parses\n";
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  Totals totals;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--roundtrip") {
      gRoundTrip = true;
      continue;
    }
    std::filesystem::path p(argv[i]);
    std::vector<std::filesystem::path> files;
    if (std::filesystem::is_directory(p)) {
      for (const auto& e : std::filesystem::directory_iterator(p))
        if (e.path().extension() == ".sqllogic") files.push_back(e.path());
      std::sort(files.begin(), files.end());
    } else {
      files.push_back(p);
    }
    for (const auto& f : files) checkFile(f, totals);
  }
  std::cout << "files " << totals.files << ", blocks " << totals.blocks << ", non-error parse failures "
            << totals.badParses << ", error blocks " << totals.errorBlocks << " (syntax errors "
            << totals.syntaxErrors << ", message mismatches " << totals.syntaxMismatch << ", parser-style expectations that parse " << totals.missedSyntax << ")\n";
  return totals.badParses == 0 ? 0 : 1;
}
