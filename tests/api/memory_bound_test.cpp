// The diagnoser's memory is bounded by design: streamed adversarial shapes
// fill every structure to its cap, after which memory stays flat however
// long the input runs (allocator-counted). FAULTLINE_MEMORY_GB sets the
// bytes per shape (default 0.25; docs/GUARANTEES.md records a 10 GiB run).
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "counting_allocator.h"
#include "faultline.h"

namespace fs = std::filesystem;

namespace {

uint64_t bytes_per_shape() {
  const char *gb = std::getenv("FAULTLINE_MEMORY_GB");
  const double v = gb ? std::atof(gb) : 0.25;
  return static_cast<uint64_t>((v > 0 ? v : 0.25) * (1ull << 30));
}

// Feeds `block(i)` (block i of the shape) until `total` bytes; returns the
// peak seen after the first tenth (structures full) and at the end.
struct Peaks {
  size_t early = 0, end = 0, live_early = 0, live_end = 0;
};
Peaks stream(const std::function<std::string(uint64_t)> &block, uint64_t total) {
  fl_pack *pack = nullptr;
  char err[256];
  REQUIRE(fl_pack_open_default(nullptr, &pack, err, sizeof err) == FL_OK);
  CountingAllocator counter;
  fl_allocator al = counter.allocator();
  fl_diagnoser_options o = FL_DIAGNOSER_OPTIONS_INIT;
  o.allocator = &al;
  fl_diagnoser *d = nullptr;
  REQUIRE(fl_diagnoser_create(pack, &o, &d) == FL_OK);
  REQUIRE(fl_diagnoser_begin_source(d, "stream.log") == FL_OK);
  Peaks p;
  uint64_t fed = 0;
  for (uint64_t i = 0; fed < total; i++) {
    const std::string b = block(i);
    REQUIRE(fl_diagnoser_feed(d, b.data(), b.size()) == FL_OK);
    fed += b.size();
    if (!p.early && fed >= total / 10) p.early = counter.peak, p.live_early = counter.live;
  }
  REQUIRE(fl_diagnoser_end_source(d) == FL_OK);
  p.live_end = counter.live;
  const char *text = nullptr;
  REQUIRE(fl_diagnoser_report(d, FL_REPORT_JSON, &text, nullptr) == FL_OK);
  p.end = counter.peak;
  fl_diagnoser_free(d);
  fl_pack_free(pack);
  CHECK(counter.live == 0);
  return p;
}

// The bound docs/GUARANTEES.md states for the diagnoser.
constexpr size_t kDocumentedBound = 200u << 20;

void check_flat(const Peaks &p, const char *shape) {
  MESSAGE(std::string(shape) << ": peak " << p.early << " bytes after a tenth, " << p.end << " at the end; live " << p.live_early
                             << " -> " << p.live_end);
  CHECK(p.end < kDocumentedBound);
  // Full after a tenth: what follows may not grow it (a pool holds up to as
  // much reclaimable text as live text, plus 1 MiB, before it is compacted).
  CHECK(p.live_end <= 2 * p.live_early + (2u << 20));
  CHECK(p.end <= 2 * p.early + (4u << 20));
}

}  // namespace

TEST_CASE("memory: logged tracebacks (exception candidates come and go)") {
  const Peaks p = stream(
      [](uint64_t i) {
        std::string b;
        for (uint64_t k = i * 512; k < (i + 1) * 512; k++)
          b += "Traceback (most recent call last):\n  File \"/w/train.py\", line " + std::to_string(k) +
               ", in <module>\n    main()\nValueError: bad value " + std::to_string(k) + " in batch\nstep " + std::to_string(k) +
               " loss 1.0\n";
        return b;
      },
      bytes_per_shape());
  check_flat(p, "tracebacks");
}

TEST_CASE("memory: a distinct host and rank on every line (past the group cap)") {
  const Peaks p = stream(
      [](uint64_t i) {
        std::string b;
        for (uint64_t k = i * 512; k < (i + 1) * 512; k++)
          b += "node" + std::to_string(k) + ": [rank" + std::to_string(k % 100000) +
               "]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n";
        return b;
      },
      bytes_per_shape());
  check_flat(p, "distinct hosts");
}

TEST_CASE("memory: real logs run on and on") {
  std::string logs;
  for (const auto &f : fs::directory_iterator(FAULTLINE_SOURCE_DIR "/tests/golden/corpus"))
    if (f.path().extension() == ".log") {
      std::ifstream in(f.path(), std::ios::binary);
      std::stringstream s;
      s << in.rdbuf();
      logs += s.str();
    }
  REQUIRE(logs.size() > (1u << 20));
  const Peaks p = stream([&](uint64_t) { return logs; }, bytes_per_shape());
  check_flat(p, "real logs");
}
