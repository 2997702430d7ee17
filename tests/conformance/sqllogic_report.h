// What a run produced and how it is reported: per-file records, the per-area summary table,
// the --json report and the ratchet (tests/conformance/passing.txt).
//
// Ratchet file format: one file name per line, without the `.sqllogic` suffix (a suffix is
// tolerated on reading); blank lines and lines starting with '#' are ignored. --update-ratchet
// writes the sorted names of the files that passed. A listed file is a regression when it ran
// and did not pass; listed files that were skipped or not part of this run are not judged.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace optic::sqllogic {

enum class FileStatus { kPassed, kFailed, kSkipped };

struct FileRecord {
  std::string name;  // see sqllogic_corpus.h
  std::string area;  // from areas.tsv; "(unmapped)" when absent
  FileStatus status = FileStatus::kFailed;
  int blocksPassed = 0;
  int blocksTotal = 0;
  std::string detail;  // first failure ("block N (line L): …") or skip reason; empty on pass
  bool crashed = false;  // failed by dying on a signal (segfault, abort, sanitizer report)
};

// The `PASS name` / `FAIL name: …` / `SKIP name: …` line for one file.
std::string formatFileLine(const FileRecord& r);

// Per-area table (files passed/total, blocks passed/total; skipped files excluded), with a
// total row. Areas sorted by name.
std::string formatAreaTable(const std::vector<FileRecord>& records);

// The closing line: "N passed, N failed" (files; skipped files are in neither count).
std::string formatClosingLine(const std::vector<FileRecord>& records);

// --json: an array of {file, area, passed, skipped, blocksPassed, blocksTotal, firstFailure}
// (firstFailure null unless failed).
std::string toJsonReport(const std::vector<FileRecord>& records);

// The ratchet list; nullopt if the file cannot be read.
std::optional<std::set<std::string>> readRatchet(const std::string& path);
// The ratchet text for these records: sorted names of passed files, one per line.
std::string ratchetText(const std::vector<FileRecord>& records);

// Records of files listed in `passing` that ran and did not pass, in record order.
std::vector<const FileRecord*> findRegressions(const std::set<std::string>& passing,
                                               const std::vector<FileRecord>& records);
// Names of passed files that `passing` does not list yet (candidates for --update-ratchet).
std::vector<std::string> findUnlistedPasses(const std::set<std::string>& passing,
                                            const std::vector<FileRecord>& records);

}  // namespace optic::sqllogic
