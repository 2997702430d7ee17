// The corpus on disk: which files to run, what they are called, which area each belongs to,
// and the fixed store-mode skip list of test-corpus.md §5.
//
// A file's *name* throughout the runner (output lines, --json, passing.txt) is its basename
// without the `.sqllogic` suffix, as in the spec's file map (e.g. `01-basic`).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace optic::sqllogic {

struct CorpusFile {
  std::string path;  // as found on disk
  std::string name;  // basename without `.sqllogic`
};

// The files named on the command line: a file as given, a directory as its `*.sqllogic`
// entries. Sorted by name, duplicates dropped. Sets *error for a path that does not exist.
std::vector<CorpusFile> collectFiles(const std::vector<std::string>& args, std::string* error);

// Basename without a trailing `.sqllogic`.
std::string fileName(std::string_view path);

// test-corpus.md §5 MEMORY_ONLY_FILES: skipped when running with --module store. This is the
// spec's list verbatim; it is the only per-file knowledge in the runner.
bool isMemoryOnlyFile(std::string_view name);

// areas.tsv: `name<TAB>area` per line (name with or without `.sqllogic`). nullopt if unreadable.
std::optional<std::map<std::string, std::string>> loadAreas(const std::string& path);

// Where areas.tsv lives for these inputs: the first existing `<dir>/areas.tsv` or
// `<dir>/../areas.tsv` for the directory of the first input. Empty when none is found.
std::string findAreasFile(const std::vector<std::string>& args);

// The whole file, or nullopt if it cannot be read.
std::optional<std::string> readWholeFile(const std::string& path);

}  // namespace optic::sqllogic
