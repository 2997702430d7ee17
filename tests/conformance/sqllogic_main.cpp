// opticdb-sqllogic: runs `.sqllogic` files the way the reference runner does (test-corpus.md).
//
//   opticdb-sqllogic [--json REPORT] [--module memory|store] [--quiet] [--areas PATH]
//                    [--ratchet PASSING] [--update-ratchet PATH] [--timeout SEC] [--no-fork]
//                    [--fail-on-crash] FILE_OR_DIR...
//
// Each file runs in its own forked child with a fresh Database and an alarm, so an engine crash
// or hang fails that one file (reported with how far it got) instead of the whole run. The
// child streams "P <n>" after each passed block and "R <json>" with the final outcome.
//
// Output: one PASS/FAIL/SKIP line per file (--quiet: FAIL lines only), the per-area table
// (areas.tsv from --areas, else found next to the first input: DIR/areas.tsv or
// DIR/../areas.tsv), ratchet findings, and exactly one closing line "N passed, N failed".
// --module store runs each file on a fresh file store in a temporary directory (storage file,
// relaxed durability; default module `store`), skips the spec's memory-only files (each
// reported as SKIP with the reason) and doubles the default timeout (15 s → 30 s), as the
// reference does. Exit status: with --ratchet, 1 iff a listed file
// regressed; without, 1 iff any file failed; 2 on usage or I/O errors. --fail-on-crash also
// exits 1 when any file's process died on a signal (for sanitizer builds: no report allowed).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "tests/conformance/sqllogic_corpus.h"
#include "tests/conformance/sqllogic_exec.h"
#include "tests/conformance/sqllogic_format.h"
#include "tests/conformance/sqllogic_report.h"

namespace optic::sqllogic {
namespace {

struct CliOptions {
  std::string jsonPath;
  std::string module = "memory";
  bool quiet = false;
  bool fork = true;
  bool failOnCrash = false;
  std::string areasPath;
  std::string ratchetPath;
  std::string updateRatchetPath;
  double timeoutSeconds = -1;  // -1: the spec's default for the module (15 s, store 30 s)
  std::vector<std::string> inputs;
};

// Capabilities this engine's backends implement (test-corpus.md §1 capability directive).
const std::set<std::string>& supportedCapabilities() {
  static const std::set<std::string> kSupported = {"standalone-index-ddl"};
  return kSupported;
}

constexpr const char* kUsage =
    "usage: opticdb-sqllogic [--json REPORT] [--module memory|store] [--quiet] [--areas PATH]\n"
    "                        [--ratchet PASSING] [--update-ratchet PATH] [--timeout SEC] [--no-fork]\n"
    "                        [--fail-on-crash] FILE_OR_DIR...\n";

bool parseArgs(int argc, char** argv, CliOptions& o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](std::string& into) {
      if (i + 1 >= argc) return false;
      into = argv[++i];
      return true;
    };
    bool ok = true;
    if (a == "--json") ok = value(o.jsonPath);
    else if (a == "--module") ok = value(o.module) && (o.module == "memory" || o.module == "store");
    else if (a == "--quiet") o.quiet = true;
    else if (a == "--no-fork") o.fork = false;
    else if (a == "--fail-on-crash") o.failOnCrash = true;
    else if (a == "--areas") ok = value(o.areasPath);
    else if (a == "--ratchet") ok = value(o.ratchetPath);
    else if (a == "--update-ratchet") ok = value(o.updateRatchetPath);
    else if (a == "--timeout") {
      std::string t;
      ok = value(t);
      if (ok) o.timeoutSeconds = std::atof(t.c_str());
    } else if (a == "--help" || a == "-h") return false;
    else if (a.size() > 1 && a[0] == '-') ok = false;
    else o.inputs.push_back(a);
    if (!ok) return false;
  }
  if (o.timeoutSeconds < 0) o.timeoutSeconds = o.module == "store" ? 30 : 15;
  return !o.inputs.empty();
}

// --- the child side -------------------------------------------------------------------------

void writeAll(int fd, const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

std::string encodeOutcome(const FileOutcome& o) {
  nlohmann::json j = {{"passed", o.passed},         {"blocksTotal", o.blocksTotal}, {"blocksPassed", o.blocksPassed},
                      {"failedBlock", o.failedBlock}, {"failedLine", o.failedLine},   {"failure", o.failure}};
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

FileOutcome decodeOutcome(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text);
  FileOutcome o;
  o.passed = j.at("passed");
  o.blocksTotal = j.at("blocksTotal");
  o.blocksPassed = j.at("blocksPassed");
  o.failedBlock = j.at("failedBlock");
  o.failedLine = j.at("failedLine");
  o.failure = j.at("failure");
  return o;
}

[[noreturn]] void childMain(int fd, const std::vector<Block>& blocks, const RunOptions& run) {
  // The hard limit for a block that never returns; the runner's own check between blocks
  // usually fires first with a clearer message.
  ::alarm(static_cast<unsigned>(std::ceil(run.timeoutSeconds)) + 1);
  FileOutcome outcome = runBlocks(blocks, run, [fd](int n) { writeAll(fd, "P " + std::to_string(n) + "\n"); });
  writeAll(fd, "R " + encodeOutcome(outcome) + "\n");
  ::_exit(0);
}

// --- the parent side ------------------------------------------------------------------------

std::string readUntilEof(int fd) {
  std::string data;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return data;
    data.append(buf, static_cast<size_t>(n));
  }
}

// Why a child ended without reporting an outcome.
std::string describeAbnormalExit(int status, double timeoutSeconds, bool finishedBlocks) {
  std::string what;
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) {
    what = "timeout: killed after " + std::to_string(static_cast<int>(std::ceil(timeoutSeconds)) + 1) + " s";
  } else if (WIFSIGNALED(status)) {
    what = std::string("crashed: signal ") + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  } else {
    what = "runner child exited with status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
           " without a result";
  }
  return finishedBlocks ? what + " during teardown" : what;
}

// Rebuilds the outcome from the child's stream when it died before reporting one.
FileOutcome outcomeFromStream(const std::string& stream, int status, const std::vector<Block>& blocks, double timeout) {
  FileOutcome o;
  o.blocksTotal = static_cast<int>(blocks.size());
  size_t pos = 0;
  while (pos < stream.size()) {
    size_t nl = stream.find('\n', pos);
    if (nl == std::string::npos) break;
    std::string line = stream.substr(pos, nl - pos);
    pos = nl + 1;
    if (line.rfind("R ", 0) == 0) return decodeOutcome(line.substr(2));
    if (line.rfind("P ", 0) == 0) o.blocksPassed = std::atoi(line.c_str() + 2);
  }
  bool finished = o.blocksPassed >= o.blocksTotal;
  if (!finished) {
    o.failedBlock = o.blocksPassed + 1;
    o.failedLine = blocks[static_cast<size_t>(o.blocksPassed)].line;
  }
  o.failure = describeAbnormalExit(status, timeout, finished);
  o.crashed = WIFSIGNALED(status) && WTERMSIG(status) != SIGALRM;
  return o;
}

FileOutcome runForked(const std::vector<Block>& blocks, const RunOptions& run) {
  int fds[2];
  if (::pipe(fds) != 0) {
    FileOutcome o;
    o.failure = std::string("pipe failed: ") + std::strerror(errno);
    return o;
  }
  std::cout.flush();
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    childMain(fds[1], blocks, run);
  }
  ::close(fds[1]);
  if (pid < 0) {
    ::close(fds[0]);
    FileOutcome o;
    o.failure = std::string("fork failed: ") + std::strerror(errno);
    return o;
  }
  std::string stream = readUntilEof(fds[0]);
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return outcomeFromStream(stream, status, blocks, run.timeoutSeconds);
}

// A fresh directory for one file's store database (--module store), removed with what the run
// left in it.
class TempStoreDir {
 public:
  TempStoreDir() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/opticdb-sqllogic-XXXXXX";
    if (::mkdtemp(tmpl.data())) path_ = tmpl;
  }
  ~TempStoreDir() {
    if (path_.empty()) return;
    for (const char* name : {"/db.odb", "/db.odb.compact"}) ::unlink((path_ + name).c_str());
    ::rmdir(path_.c_str());
  }
  TempStoreDir(const TempStoreDir&) = delete;
  TempStoreDir& operator=(const TempStoreDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

FileRecord runFile(const CorpusFile& file, const CliOptions& cli, const std::map<std::string, std::string>& areas) {
  FileRecord rec;
  rec.name = file.name;
  auto area = areas.find(file.name);
  rec.area = area != areas.end() ? area->second : "(unmapped)";

  std::optional<std::string> text = readWholeFile(file.path);
  if (!text) {
    rec.detail = "cannot read " + file.path;
    return rec;
  }
  std::vector<Block> blocks = parseBlocks(*text);
  rec.blocksTotal = static_cast<int>(blocks.size());
  std::string capError;
  std::optional<std::set<std::string>> required = parseRequiredCapabilities(file.name + ".sqllogic", *text, &capError);
  if (!required) {
    rec.detail = "capability directive: " + capError;
    return rec;
  }
  for (const std::string& cap : *required) {
    if (!supportedCapabilities().count(cap)) {
      rec.status = FileStatus::kSkipped;
      rec.detail = "backend lacks capability \"" + cap + "\"";
      return rec;
    }
  }
  if (cli.module == "store" && isMemoryOnlyFile(file.name)) {
    rec.status = FileStatus::kSkipped;
    rec.detail = "memory-only file (test-corpus.md §5) in store mode";
    return rec;
  }

  RunOptions run{cli.module, cli.timeoutSeconds};
  std::optional<TempStoreDir> storeDir;
  if (cli.module == "store") {
    storeDir.emplace();
    if (storeDir->path().empty()) {
      rec.detail = "cannot create a temporary directory for the file store";
      return rec;
    }
    run.storePath = storeDir->path() + "/db.odb";
  }
  FileOutcome outcome = cli.fork ? runForked(blocks, run) : runBlocks(blocks, run);
  rec.status = outcome.passed ? FileStatus::kPassed : FileStatus::kFailed;
  rec.blocksPassed = outcome.blocksPassed;
  rec.blocksTotal = outcome.blocksTotal;
  rec.crashed = outcome.crashed;
  if (!outcome.passed) rec.detail = describeFailure(outcome);
  return rec;
}

bool writeFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  return static_cast<bool>(out);
}

std::map<std::string, std::string> areasFor(const CliOptions& cli) {
  std::string path = cli.areasPath.empty() ? findAreasFile(cli.inputs) : cli.areasPath;
  if (path.empty()) {
    std::cerr << "note: no areas.tsv found next to the inputs (use --areas PATH)\n";
    return {};
  }
  std::optional<std::map<std::string, std::string>> areas = loadAreas(path);
  if (!areas) std::cerr << "note: cannot read " << path << "\n";
  return areas.value_or(std::map<std::string, std::string>{});
}

// Prints regressions and new passes; true when a listed file regressed.
bool reportRatchet(const std::set<std::string>& passing, const std::vector<FileRecord>& records,
                   const std::string& path) {
  std::vector<const FileRecord*> regressions = findRegressions(passing, records);
  for (const FileRecord* r : regressions) std::cout << "REGRESSION " << r->name << ": " << r->detail << "\n";
  std::vector<std::string> unlisted = findUnlistedPasses(passing, records);
  std::cout << "ratchet " << path << ": " << regressions.size() << " regression(s), " << unlisted.size()
            << " passing file(s) not yet listed\n";
  return !regressions.empty();
}

int mainImpl(int argc, char** argv) {
  CliOptions cli;
  if (!parseArgs(argc, argv, cli)) {
    std::cerr << kUsage;
    return 2;
  }
  std::string error;
  std::vector<CorpusFile> files = collectFiles(cli.inputs, &error);
  if (!error.empty()) {
    std::cerr << "opticdb-sqllogic: " << error << "\n";
    return 2;
  }
  std::optional<std::set<std::string>> passing;
  if (!cli.ratchetPath.empty() && !(passing = readRatchet(cli.ratchetPath))) {
    std::cerr << "opticdb-sqllogic: cannot read ratchet " << cli.ratchetPath << "\n";
    return 2;
  }
  std::map<std::string, std::string> areas = areasFor(cli);

  std::vector<FileRecord> records;
  for (const CorpusFile& f : files) {
    records.push_back(runFile(f, cli, areas));
    if (!cli.quiet || records.back().status == FileStatus::kFailed) {
      std::cout << formatFileLine(records.back()) << std::endl;
    }
  }

  if (cli.module == "store") {
    std::string skipped;
    int n = 0;
    for (const CorpusFile& f : files) {
      if (isMemoryOnlyFile(f.name)) skipped += (n++ ? ", " : "") + f.name;
    }
    std::cout << "store mode: " << n << " memory-only file(s) skipped (store.md §8)" << (n ? ": " + skipped : "")
              << "\n";
  }
  std::cout << "\n" << formatAreaTable(records);
  bool regressed = passing && reportRatchet(*passing, records, cli.ratchetPath);
  if (!cli.jsonPath.empty() && !writeFile(cli.jsonPath, toJsonReport(records))) {
    std::cerr << "opticdb-sqllogic: cannot write " << cli.jsonPath << "\n";
  }
  if (!cli.updateRatchetPath.empty() && !writeFile(cli.updateRatchetPath, ratchetText(records))) {
    std::cerr << "opticdb-sqllogic: cannot write " << cli.updateRatchetPath << "\n";
  }
  int crashes = 0;
  for (const FileRecord& r : records) crashes += r.crashed;
  if (cli.failOnCrash && crashes > 0) std::cout << crashes << " file(s) crashed (--fail-on-crash)\n";
  std::cout << formatClosingLine(records) << std::endl;

  if (cli.failOnCrash && crashes > 0) return 1;
  if (passing) return regressed ? 1 : 0;
  for (const FileRecord& r : records) {
    if (r.status == FileStatus::kFailed) return 1;
  }
  return 0;
}

}  // namespace
}  // namespace optic::sqllogic

int main(int argc, char** argv) { return optic::sqllogic::mainImpl(argc, argv); }
