// Replays fuzz inputs without libFuzzer, with any compiler: calls
// LLVMFuzzerTestOneInput once on each file named on the command line or found
// in a directory named there (sorted; dot files skipped), so that ctest runs
// every committed seed and repro. A crash or failed invariant aborts.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace fs = std::filesystem;

static bool run_file(const fs::path &p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) {
    std::fprintf(stderr, "replay: cannot read %s\n", p.c_str());
    return false;
  }
  std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  // A heap copy of the exact size, so ASan sees reads past the end.
  std::vector<uint8_t> input(bytes.begin(), bytes.end());
  std::fprintf(stderr, "replay: %s (%zu bytes)\n", p.c_str(), input.size());
  LLVMFuzzerTestOneInput(input.data(), input.size());
  return true;
}

int main(int argc, char **argv) {
  size_t files = 0;
  bool ok = true;
  for (int i = 1; i < argc; i++) {
    fs::path arg(argv[i]);
    if (!fs::is_directory(arg)) {
      ok = run_file(arg) && ok;
      files++;
      continue;
    }
    std::vector<fs::path> inputs;
    for (const auto &e : fs::recursive_directory_iterator(arg))
      if (e.is_regular_file() && e.path().filename().string()[0] != '.') inputs.push_back(e.path());
    std::sort(inputs.begin(), inputs.end());
    for (const auto &p : inputs) ok = run_file(p) && ok, files++;
  }
  std::fprintf(stderr, "replay: %zu input(s) ran\n", files);
  return ok ? 0 : 1;
}
