// Corpus discovery, naming, areas and the store-mode skip list; see sqllogic_corpus.h.
#include "tests/conformance/sqllogic_corpus.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/conformance/sqllogic_format.h"

namespace optic::sqllogic {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kSuffix = ".sqllogic";

bool hasSuffix(std::string_view s) {
  return s.size() >= kSuffix.size() && s.substr(s.size() - kSuffix.size()) == kSuffix;
}

std::string stripSuffix(std::string_view s) {
  return std::string(hasSuffix(s) ? s.substr(0, s.size() - kSuffix.size()) : s);
}

void addDirectory(const fs::path& dir, std::vector<CorpusFile>& out) {
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    std::string base = entry.path().filename().string();
    if (entry.is_regular_file() && hasSuffix(base)) out.push_back({entry.path().string(), stripSuffix(base)});
  }
}

}  // namespace

std::vector<CorpusFile> collectFiles(const std::vector<std::string>& args, std::string* error) {
  std::vector<CorpusFile> files;
  for (const std::string& arg : args) {
    std::error_code ec;
    if (fs::is_directory(arg, ec)) {
      addDirectory(arg, files);
    } else if (fs::is_regular_file(arg, ec)) {
      files.push_back({arg, fileName(arg)});
    } else {
      *error = "no such file or directory: " + arg;
      return {};
    }
  }
  std::sort(files.begin(), files.end(), [](const CorpusFile& a, const CorpusFile& b) { return a.name < b.name; });
  files.erase(std::unique(files.begin(), files.end(),
                          [](const CorpusFile& a, const CorpusFile& b) { return a.name == b.name; }),
              files.end());
  return files;
}

std::string fileName(std::string_view path) {
  return stripSuffix(fs::path(std::string(path)).filename().string());
}

bool isMemoryOnlyFile(std::string_view name) {
  static constexpr std::array<std::string_view, 8> kMemoryOnly = {
      "05-vtab_memory",
      "05.0.1-vtab-memory-unique-index-collation",
      "10.2.2-default-collation-memory",
      "41.2.1-alter-column-retype-deleted-row-memory",
      "83-merge-join",
      "103-database-options-edge-cases",
      "105-vtab-memory-mutation-kills",
      "105.1-vtab-memory-index-mutation-kills",
  };
  std::string stem = stripSuffix(name);
  return std::find(kMemoryOnly.begin(), kMemoryOnly.end(), stem) != kMemoryOnly.end();
}

std::optional<std::map<std::string, std::string>> loadAreas(const std::string& path) {
  std::optional<std::string> text = readWholeFile(path);
  if (!text) return std::nullopt;
  std::map<std::string, std::string> areas;
  for (std::string_view line : splitLines(*text)) {
    size_t tab = line.find('\t');
    if (tab == std::string_view::npos) continue;
    std::string name = stripSuffix(jsTrim(line.substr(0, tab)));
    std::string area(jsTrim(line.substr(tab + 1)));
    if (!name.empty() && !area.empty()) areas[name] = area;
  }
  return areas;
}

std::string findAreasFile(const std::vector<std::string>& args) {
  if (args.empty()) return "";
  std::error_code ec;
  fs::path first(args.front());
  fs::path dir = fs::is_directory(first, ec) ? first : first.parent_path();
  if (dir.empty()) dir = ".";
  for (const fs::path& candidate : {dir / "areas.tsv", dir / ".." / "areas.tsv"}) {
    if (fs::is_regular_file(candidate, ec)) return candidate.string();
  }
  return "";
}

std::optional<std::string> readWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace optic::sqllogic
