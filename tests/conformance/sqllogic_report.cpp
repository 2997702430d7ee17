// Report formatting and the ratchet; see sqllogic_report.h.
#include "tests/conformance/sqllogic_report.h"

#include <algorithm>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "tests/conformance/sqllogic_corpus.h"
#include "tests/conformance/sqllogic_format.h"

namespace optic::sqllogic {

namespace {

struct Tally {
  int filesPassed = 0, filesTotal = 0, blocksPassed = 0, blocksTotal = 0;

  void add(const FileRecord& r) {
    ++filesTotal;
    if (r.status == FileStatus::kPassed) ++filesPassed;
    blocksPassed += r.blocksPassed;
    blocksTotal += r.blocksTotal;
  }
};

std::string ratio(int a, int b) { return std::to_string(a) + "/" + std::to_string(b); }

std::string tableRow(const std::string& area, const Tally& t) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%-30s %9s %13s\n", area.c_str(), ratio(t.filesPassed, t.filesTotal).c_str(),
                ratio(t.blocksPassed, t.blocksTotal).c_str());
  return buf;
}

}  // namespace

std::string formatFileLine(const FileRecord& r) {
  switch (r.status) {
    case FileStatus::kPassed: return "PASS " + r.name;
    case FileStatus::kFailed: return "FAIL " + r.name + ": " + r.detail;
    case FileStatus::kSkipped: return "SKIP " + r.name + ": " + r.detail;
  }
  return r.name;
}

std::string formatAreaTable(const std::vector<FileRecord>& records) {
  std::map<std::string, Tally> byArea;
  Tally total;
  for (const FileRecord& r : records) {
    if (r.status == FileStatus::kSkipped) continue;
    byArea[r.area].add(r);
    total.add(r);
  }
  char header[256];
  std::snprintf(header, sizeof header, "%-30s %9s %13s\n", "area", "files", "blocks");
  std::string out = header;
  for (const auto& [area, tally] : byArea) out += tableRow(area, tally);
  out += tableRow("total", total);
  return out;
}

std::string formatClosingLine(const std::vector<FileRecord>& records) {
  int passed = 0, failed = 0;
  for (const FileRecord& r : records) {
    if (r.status == FileStatus::kPassed) ++passed;
    if (r.status == FileStatus::kFailed) ++failed;
  }
  return std::to_string(passed) + " passed, " + std::to_string(failed) + " failed";
}

std::string toJsonReport(const std::vector<FileRecord>& records) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const FileRecord& r : records) {
    nlohmann::ordered_json rec;
    rec["file"] = r.name;
    rec["area"] = r.area;
    rec["passed"] = r.status == FileStatus::kPassed;
    rec["skipped"] = r.status == FileStatus::kSkipped;
    rec["blocksPassed"] = r.blocksPassed;
    rec["blocksTotal"] = r.blocksTotal;
    rec["firstFailure"] = r.status == FileStatus::kFailed ? nlohmann::ordered_json(r.detail) : nullptr;
    out.push_back(std::move(rec));
  }
  // replace: engine text in failure messages need not be valid UTF-8.
  return out.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::optional<std::set<std::string>> readRatchet(const std::string& path) {
  std::optional<std::string> text = readWholeFile(path);
  if (!text) return std::nullopt;
  std::set<std::string> names;
  for (std::string_view line : splitLines(*text)) {
    std::string_view s = jsTrim(line);
    if (s.empty() || s.front() == '#') continue;
    names.insert(fileName(s));
  }
  return names;
}

std::string ratchetText(const std::vector<FileRecord>& records) {
  std::vector<std::string> names;
  for (const FileRecord& r : records) {
    if (r.status == FileStatus::kPassed) names.push_back(r.name);
  }
  std::sort(names.begin(), names.end());
  std::string out;
  for (const std::string& n : names) out += n + "\n";
  return out;
}

std::vector<const FileRecord*> findRegressions(const std::set<std::string>& passing,
                                               const std::vector<FileRecord>& records) {
  std::vector<const FileRecord*> out;
  for (const FileRecord& r : records) {
    if (r.status == FileStatus::kFailed && passing.count(r.name)) out.push_back(&r);
  }
  return out;
}

std::vector<std::string> findUnlistedPasses(const std::set<std::string>& passing,
                                            const std::vector<FileRecord>& records) {
  std::vector<std::string> out;
  for (const FileRecord& r : records) {
    if (r.status == FileStatus::kPassed && !passing.count(r.name)) out.push_back(r.name);
  }
  return out;
}

}  // namespace optic::sqllogic
