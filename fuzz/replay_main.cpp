// The driver of a fuzz target in a build without libFuzzer: runs LLVMFuzzerTestOneInput once
// per input file, each file argument or each file of a directory argument (flags, which
// libFuzzer would read, are ignored), so ctest replays the regression inputs in every build.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

void replay(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::printf("replaying %s\n", file.string().c_str());
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::filesystem::path p = argv[i];
    if (argv[i][0] == '-') continue;
    if (std::filesystem::is_directory(p)) {
      for (const auto& e : std::filesystem::directory_iterator(p)) {
        if (e.is_regular_file()) replay(e.path());
      }
    } else {
      replay(p);
    }
  }
  return 0;
}
