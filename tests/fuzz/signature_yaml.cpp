// flc's front end on arbitrary signature files: the YAML reader, its field
// checks, and for each pattern the regex dialect parser, the program compiler
// and the piece splitter (what `flc compile` runs before Ragel). The same
// bytes are read as a signature (memory/cuda-out-of-memory.yaml, so that a
// seed's id and category match its path) and as a framing file. The reader's
// contract: it returns false exactly when it reported an error, and it never
// throws (flc does not catch around it: an escaping exception kills flc).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "fuzz_common.h"
#include "signature_reader.h"

namespace fs = std::filesystem;

namespace {

// A private directory per process (fuzzers may run in parallel).
const fs::path &root() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("faultline-fuzz-" + std::to_string(getpid()));
    fs::create_directories(d / "memory");
    fs::create_directories(d / "framing");
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(root(), ec);
    });
    return d;
  }();
  return dir;
}

void write(const fs::path &p, const uint8_t *data, size_t size) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char *>(data), static_cast<std::streamsize>(size));
  FUZZ_CHECK(f.good());
}

void check_diagnostics(const faultline::Diagnostics &diags) {
  for (const auto &d : diags.all()) FUZZ_CHECK(!d.format().empty());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const fs::path sig = root() / "memory" / "cuda-out-of-memory.yaml";
  write(sig, data, size);
  faultline::Signature s;
  faultline::Diagnostics diags;
  const bool ok = faultline::read_signature_file(sig.string(), "memory/cuda-out-of-memory.yaml", {}, &s, &diags);
  FUZZ_CHECK(ok == !diags.has_errors());
  if (ok) FUZZ_CHECK(!s.patterns.empty() && s.id == "cuda-out-of-memory");
  check_diagnostics(diags);

  write(root() / "framing" / "fuzz.yaml", data, size);
  faultline::Diagnostics framing_diags;
  std::vector<faultline::Framing> framings = faultline::load_framings(root().string(), {}, &framing_diags);
  FUZZ_CHECK(framings.size() <= 1);
  check_diagnostics(framing_diags);
  return 0;
}
