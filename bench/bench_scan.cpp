// Throughput of the default pack on real training logs: the line matcher
// alone, and the C API path (fl_scanner_feed); and the cost of opening
// (fully verifying) a pack. Bytes/s and lines/s.
#include <benchmark/benchmark.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <faultline.h>

#include "line_matcher.h"
#include "pack_reader.h"

namespace fs = std::filesystem;
using namespace faultline;

namespace {

std::string read_file(const fs::path &p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// Every *.log under dir, concatenated, then repeated up to min_bytes.
std::string corpus(const std::string &dir, size_t min_bytes) {
  std::vector<fs::path> files;
  for (const auto &e : fs::directory_iterator(dir))
    if (e.path().extension() == ".log") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::string all;
  for (const auto &f : files) all += read_file(f);
  if (all.empty()) return all;
  std::string out = all;
  while (out.size() < min_bytes) out += all;
  return out;
}

struct Fixture {
  std::vector<uint64_t> memory;
  size_t size = 0;
  PackView pack;
  LineMatcher matcher;

  Fixture() {
    std::string bytes = read_file(FAULTLINE_BENCH_PACK);
    memory.assign(bytes.size() / 8 + 1, 0);
    std::memcpy(memory.data(), bytes.data(), bytes.size());
    size = bytes.size();
    ErrorText err;
    if (open_pack_view(reinterpret_cast<const uint8_t *>(memory.data()), size, &pack, &err) != Status::kOk) std::abort();
    if (matcher.create(&pack) != Status::kOk) std::abort();
  }
};

Fixture &fixture() {
  static Fixture f;
  return f;
}

void count_match(void *ctx, uint32_t, const int32_t *) { ++*static_cast<uint64_t *>(ctx); }

void scan(benchmark::State &st, const std::string &text) {
  Fixture &f = fixture();
  if (text.empty()) {
    st.SkipWithError("corpus not found (set FAULTLINE_CORPUS)");
    return;
  }
  uint64_t matches = 0, lines = 0;
  for (auto _ : st) {
    const uint8_t *p = reinterpret_cast<const uint8_t *>(text.data()), *end = p + text.size();
    while (p < end) {
      const uint8_t *nl = static_cast<const uint8_t *>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
      const uint8_t *stop = nl ? nl : end;
      f.matcher.match_line(p, static_cast<size_t>(stop - p), count_match, &matches);
      lines++;
      p = stop + 1;
    }
  }
  benchmark::DoNotOptimize(matches);
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations()) * static_cast<int64_t>(text.size()));
  st.counters["lines/s"] = benchmark::Counter(static_cast<double>(lines), benchmark::Counter::kIsRate);
  st.counters["matches/iter"] = static_cast<double>(matches) / static_cast<double>(st.iterations());
}

std::string corpus_dir(const char *sub) {
  const char *env = std::getenv("FAULTLINE_CORPUS");
  return std::string(env && *env ? env : FAULTLINE_BENCH_CORPUS) + "/" + sub;
}

void BM_match_lines_healthy(benchmark::State &st) {
  static const std::string text = corpus(corpus_dir("healthy"), 64u << 20);
  scan(st, text);
}
BENCHMARK(BM_match_lines_healthy)->Unit(benchmark::kMillisecond);

void BM_match_lines_failing(benchmark::State &st) {
  static const std::string text = corpus(corpus_dir("failing"), 16u << 20);
  scan(st, text);
}
BENCHMARK(BM_match_lines_failing)->Unit(benchmark::kMillisecond);

// The whole runtime path an embedder uses: fl_scanner_feed in 64 KiB chunks
// (line assembly, ANSI check, prefilter, DFAs, programs, framing, events).
void scan_c_api(benchmark::State &st, const std::string &text) {
  if (text.empty()) {
    st.SkipWithError("corpus not found (set FAULTLINE_CORPUS)");
    return;
  }
  fl_pack *pack = nullptr;
  fl_scanner *scanner = nullptr;
  const char *pack_path = std::getenv("FAULTLINE_PACK");
  fl_status opened = pack_path && *pack_path ? fl_pack_open_file(pack_path, nullptr, &pack, nullptr, 0)
                                             : fl_pack_open_default(nullptr, &pack, nullptr, 0);
  if (opened != FL_OK || fl_scanner_create(pack, nullptr, &scanner) != FL_OK) {
    st.SkipWithError("cannot open the default pack");
    return;
  }
  uint64_t events = 0;
  auto count = [](void *ctx, const fl_event *) { return ++*static_cast<uint64_t *>(ctx), 0; };
  for (auto _ : st) {
    for (size_t at = 0; at < text.size(); at += 65536)
      fl_scanner_feed(scanner, text.data() + at, std::min<size_t>(65536, text.size() - at), count, &events);
    fl_scanner_finish(scanner, count, &events);
  }
  fl_scanner_stats stats;
  stats.struct_size = sizeof stats;
  fl_scanner_get_stats(scanner, &stats);
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations()) * static_cast<int64_t>(text.size()));
  st.counters["lines/s"] = benchmark::Counter(static_cast<double>(stats.lines), benchmark::Counter::kIsRate);
  st.counters["events/iter"] = static_cast<double>(events) / static_cast<double>(st.iterations());
  st.counters["candidates/iter"] = static_cast<double>(stats.candidate_lines) / static_cast<double>(st.iterations());
  st.counters["lines/iter"] = static_cast<double>(stats.lines) / static_cast<double>(st.iterations());
  fl_scanner_free(scanner);
  fl_pack_free(pack);
}

void BM_scanner_feed_healthy(benchmark::State &st) {
  static const std::string text = corpus(corpus_dir("healthy"), 64u << 20);
  scan_c_api(st, text);
}
BENCHMARK(BM_scanner_feed_healthy)->Unit(benchmark::kMillisecond);

void BM_scanner_feed_failing(benchmark::State &st) {
  static const std::string text = corpus(corpus_dir("failing"), 16u << 20);
  scan_c_api(st, text);
}
BENCHMARK(BM_scanner_feed_failing)->Unit(benchmark::kMillisecond);

// Diagnosis end to end: the diagnoser's scan plus evidence, then the report.
void diagnose_c_api(benchmark::State &st, const std::string &text) {
  if (text.empty()) {
    st.SkipWithError("corpus not found (set FAULTLINE_CORPUS)");
    return;
  }
  fl_pack *pack = nullptr;
  if (fl_pack_open_default(nullptr, &pack, nullptr, 0) != FL_OK) {
    st.SkipWithError("cannot open the default pack");
    return;
  }
  size_t report_bytes = 0;
  for (auto _ : st) {
    fl_diagnoser *d = nullptr;
    fl_diagnoser_create(pack, nullptr, &d);
    fl_diagnoser_begin_source(d, "corpus");
    for (size_t at = 0; at < text.size(); at += 65536)
      fl_diagnoser_feed(d, text.data() + at, std::min<size_t>(65536, text.size() - at));
    const char *json = nullptr;
    fl_diagnoser_report(d, FL_REPORT_JSON, &json, &report_bytes);
    benchmark::DoNotOptimize(json);
    fl_diagnoser_free(d);
  }
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations()) * static_cast<int64_t>(text.size()));
  st.counters["report_bytes"] = static_cast<double>(report_bytes);
  fl_pack_free(pack);
}

void BM_diagnose_healthy(benchmark::State &st) {
  static const std::string text = corpus(corpus_dir("healthy"), 64u << 20);
  diagnose_c_api(st, text);
}
BENCHMARK(BM_diagnose_healthy)->Unit(benchmark::kMillisecond);

void BM_diagnose_failing(benchmark::State &st) {
  static const std::string text = corpus(corpus_dir("failing"), 16u << 20);
  diagnose_c_api(st, text);
}
BENCHMARK(BM_diagnose_failing)->Unit(benchmark::kMillisecond);

void BM_pack_open_verify(benchmark::State &st) {
  Fixture &f = fixture();
  for (auto _ : st) {
    PackView v;
    ErrorText err;
    benchmark::DoNotOptimize(open_pack_view(reinterpret_cast<const uint8_t *>(f.memory.data()), f.size, &v, &err));
  }
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations()) * static_cast<int64_t>(f.size));
}
BENCHMARK(BM_pack_open_verify)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
