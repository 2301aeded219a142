// The C API as embedders use it, through include/faultline.h only: chunking
// invariance on real logs, line breaks, hostile logs with bounded memory,
// hostile packs, threads, argument checks.
#include <doctest/doctest.h>
#include <faultline.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "counting_allocator.h"

namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path &p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// Every field of an event, copied (pointers die with the callback).
std::string describe(const fl_event *ev) {
  std::string s = std::to_string(ev->line_number) + "@" + std::to_string(ev->byte_offset) + " " + ev->entry_id + "/" +
                  ev->pattern + " f" + std::to_string(ev->flags) + " [" + std::string(ev->line, ev->line_len) + "]";
  for (uint32_t i = 0; i < ev->capture_count; i++)
    s += " " + std::string(ev->captures[i].name) + "=" + std::string(ev->captures[i].value, ev->captures[i].value_len);
  return s;
}

int collect(void *ctx, const fl_event *ev) {
  static_cast<std::vector<std::string> *>(ctx)->push_back(describe(ev));
  return 0;
}

struct Pack {
  fl_pack *pack = nullptr;
  explicit Pack(const fl_pack_options *opts = nullptr) {
    char err[256];
    REQUIRE(fl_pack_open_default(opts, &pack, err, sizeof err) == FL_OK);
  }
  ~Pack() { fl_pack_free(pack); }
};

// Feeds `text` to `s` cut at `cuts` (sorted offsets), collecting the events.
void feed_cut(fl_scanner *s, const std::string &text, const std::vector<size_t> &cuts, std::vector<std::string> *events) {
  size_t at = 0;
  for (size_t cut : cuts) {
    REQUIRE(fl_scanner_feed(s, text.data() + at, cut - at, collect, events) == FL_OK);
    at = cut;
  }
  REQUIRE(fl_scanner_feed(s, text.data() + at, text.size() - at, collect, events) == FL_OK);
}

// Scans `text` cut at `cuts` (sorted offsets) and returns the events.
std::vector<std::string> scan(fl_pack *pack, const std::string &text, const std::vector<size_t> &cuts, uint32_t max_line = 0) {
  fl_scanner_options o = FL_SCANNER_OPTIONS_INIT;
  o.max_line_bytes = max_line;
  fl_scanner *s = nullptr;
  REQUIRE(fl_scanner_create(pack, &o, &s) == FL_OK);
  std::vector<std::string> events;
  feed_cut(s, text, cuts, &events);
  REQUIRE(fl_scanner_finish(s, collect, &events) == FL_OK);
  fl_scanner_free(s);
  return events;
}

// The events of one entry ("entry-id/"): other entries (the generic
// uncaught-exception one) may read the same lines.
std::vector<std::string> only(const std::vector<std::string> &events, const std::string &entry) {
  std::vector<std::string> out;
  for (const auto &e : events)
    if (e.find(" " + entry) != std::string::npos) out.push_back(e);
  return out;
}

std::vector<size_t> random_cuts(std::mt19937 &rng, size_t size) {
  std::vector<size_t> cuts;
  if (size == 0) return cuts;
  int n = std::uniform_int_distribution<int>(1, 40)(rng);
  for (int i = 0; i < n; i++) cuts.push_back(std::uniform_int_distribution<size_t>(0, size)(rng));
  std::sort(cuts.begin(), cuts.end());
  return cuts;
}

// Real logs: the bundled ones, plus ../shared's corpus and eval cases when
// this checkout sits next to them.
std::vector<fs::path> real_logs() {
  std::vector<fs::path> logs;
  for (const char *dir : {FAULTLINE_TEST_DATA "/logs", FAULTLINE_SHARED_DIR "/eval/cases", FAULTLINE_SHARED_DIR "/corpus/failing",
                          FAULTLINE_SHARED_DIR "/corpus/healthy"}) {
    std::error_code ec;
    for (const auto &e : fs::directory_iterator(dir, ec))
      if (e.path().extension() == ".log") logs.push_back(e.path());
  }
  std::sort(logs.begin(), logs.end());
  return logs;
}

}  // namespace

TEST_CASE("api: versions, status texts, option init") {
  CHECK(fl_version_number() == FL_VERSION_NUMBER);
  CHECK(std::string(fl_version_string()) == "0.2.0");
  CHECK(std::string(fl_status_str(FL_E_PACK_VERSION)) == "unsupported pack format version");
  CHECK(std::string(fl_status_str(12345)) == "unknown status");
  fl_scanner_options o;
  CHECK(fl_scanner_options_init(&o, sizeof o) == FL_OK);
  CHECK(o.struct_size == sizeof o);
  CHECK(fl_scanner_options_init(&o, 4) == FL_E_INVALID_ARG);
}

TEST_CASE("api: argument checks set out-parameters to NULL") {
  fl_pack *p = reinterpret_cast<fl_pack *>(0x1);
  CHECK(fl_pack_open_memory(nullptr, 10, nullptr, &p, nullptr, 0) == FL_E_INVALID_ARG);
  CHECK(p == nullptr);
  p = reinterpret_cast<fl_pack *>(0x1);
  char err[128];
  CHECK(fl_pack_open_file("/nonexistent/pack.flpack", nullptr, &p, err, sizeof err) == FL_E_IO);
  CHECK(p == nullptr);
  CHECK(std::string(err).find("/nonexistent/pack.flpack") != std::string::npos);
  fl_scanner *s = reinterpret_cast<fl_scanner *>(0x1);
  CHECK(fl_scanner_create(nullptr, nullptr, &s) == FL_E_INVALID_ARG);
  CHECK(s == nullptr);
  CHECK(fl_scanner_feed(nullptr, "x", 1, nullptr, nullptr) == FL_E_INVALID_ARG);
  Pack pack;
  fl_scanner_options bad = FL_SCANNER_OPTIONS_INIT;
  bad.struct_size = 2;
  CHECK(fl_scanner_create(pack.pack, &bad, &s) == FL_E_INVALID_ARG);
  fl_pack_free(nullptr);
  fl_scanner_free(nullptr);
  CHECK(fl_pack_entry_id(pack.pack, 1u << 30) == nullptr);
  CHECK(std::string(fl_pack_entry_id(pack.pack, 0)).size() > 0);
}

TEST_CASE("api: line breaks: \\n, \\r\\n and a bare \\r each end one line") {
  Pack pack;
  std::string oom =
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 15.77 GiB";
  std::string text = "a\r\n" + oom + "\rprogress 10%\rprogress 20%\r\n" + oom + "\n\n" + oom;  // last line unterminated
  auto events = only(scan(pack.pack, text, {}), "cuda-out-of-memory/");
  REQUIRE(events.size() == 3);
  CHECK(events[0].rfind("2@3 cuda-out-of-memory/", 0) == 0);
  CHECK(events[1].rfind("5@" + std::to_string(3 + oom.size() + 1 + 13 + 13 + 1), 0) == 0);
  CHECK(events[2].rfind("7@", 0) == 0);
  // A "\r\n" split between two chunks is still one break.
  size_t crlf = text.find("\r\n");
  CHECK(only(scan(pack.pack, text, {crlf + 1}), "cuda-out-of-memory/") == events);
}

// Plain text is counted 64 bytes at a time; a block holding a '\r' or an ESC,
// a "\r\n" cut by a block, a line longer than max_line_bytes: one by one.
// Lines of every length up to 3 blocks, each ended by '\n', "\r\n" or a bare
// '\r', some colored: the counts are what was written, fed whole or byte by byte.
TEST_CASE("api: line and cut-line counts, plain blocks or not") {
  Pack pack;
  std::mt19937 rng(20261208);
  for (uint32_t max_line : {63u, 64u, 100u, 0u}) {
    const size_t limit = max_line ? max_line : 65536;
    std::string text;
    uint64_t lines = 0, cut = 0;
    while (text.size() < 200 * 1024) {
      // An empty line after a bare '\r' would make its "\r\n" one break.
      const size_t len = std::uniform_int_distribution<size_t>(!text.empty() && text.back() == '\r', 200)(rng);
      std::string line(len, 'x');
      for (char &c : line) c = static_cast<char>('a' + std::uniform_int_distribution<int>(0, 25)(rng));
      if (len > 8 && std::uniform_int_distribution<int>(0, 40)(rng) == 0) line.replace(2, 5, "\x1b[31m");
      const int end = std::uniform_int_distribution<int>(0, 30)(rng);
      text += line + (end == 0 ? "\r\n" : end == 1 ? "\r" : "\n");
      lines++;
      cut += len > limit;
    }
    if (text.back() == '\r') text += '\n';  // a last bare '\r' waits for a possible '\n'
    auto stats = [&](const std::vector<size_t> &cuts) {
      fl_scanner_options o = FL_SCANNER_OPTIONS_INIT;
      o.max_line_bytes = max_line;
      fl_scanner *s = nullptr;
      REQUIRE(fl_scanner_create(pack.pack, &o, &s) == FL_OK);
      std::vector<std::string> events;
      feed_cut(s, text, cuts, &events);
      fl_scanner_stats st{};
      st.struct_size = sizeof st;
      REQUIRE(fl_scanner_get_stats(s, &st) == FL_OK);
      fl_scanner_free(s);
      return st;
    };
    std::vector<size_t> every(text.size());
    for (size_t i = 0; i < text.size(); i++) every[i] = i;
    for (const fl_scanner_stats &st : {stats({}), stats(every), stats(random_cuts(rng, text.size()))}) {
      CHECK(st.lines == lines);
      CHECK(st.truncated_lines == cut);
    }
  }
}

TEST_CASE("api: events are identical however real logs are chunked") {
  Pack pack;
  std::mt19937 rng(20261202);
  size_t logs = 0, runs = 0, events_seen = 0;
  const auto paths = real_logs();
  // Thousands of chunkings in all, also when only the bundled logs are here.
  const int small_reps = std::max<int>(60, static_cast<int>(2400 / std::max<size_t>(paths.size(), 1)));
  for (const auto &path : paths) {
    std::string text = read_file(path);
    auto reference = scan(pack.pack, text, {});
    events_seen += reference.size();
    // Small logs many times, large ones fewer: thousands of runs in all.
    int reps = text.size() < 64 * 1024 ? small_reps : text.size() < 2 * 1024 * 1024 ? 6 : 2;
    for (int r = 0; r < reps; r++) {
      auto cuts = random_cuts(rng, text.size());
      auto got = scan(pack.pack, text, cuts);
      CHECK_MESSAGE(got == reference, path.filename().string() << " differs when cut at " << cuts.size() << " places");
      runs++;
    }
    if (text.size() < 16 * 1024) {  // and one byte at a time
      std::vector<size_t> every(text.size());
      for (size_t i = 0; i < text.size(); i++) every[i] = i;
      CHECK(scan(pack.pack, text, every) == reference);
      runs++;
    }
    logs++;
  }
  MESSAGE(logs << " real logs, " << runs << " chunkings, " << events_seen << " events per full pass");
  CHECK(logs >= 4);
  CHECK(runs >= 2000);
  CHECK(events_seen > 0);
}

TEST_CASE("api: ANSI colors do not break matching or captures") {
  Pack pack;
  std::string plain =
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of 79.15 GiB";
  std::string colored = "\x1b[1;31m" + plain.substr(0, 30) + "\x1b[0m" + plain.substr(30) + "\x1b]0;title\x07\x1b(B";
  auto a = only(scan(pack.pack, plain + "\n", {}), "cuda-out-of-memory/");
  auto b = only(scan(pack.pack, colored + "\n", {}), "cuda-out-of-memory/");
  REQUIRE(a.size() == 1);
  CHECK(a == b);
  CHECK(a[0].find("requested=2.00 GiB") != std::string::npos);
}

TEST_CASE("api: hostile logs: bounded memory, no allocation while feeding, right events after") {
  CountingAllocator counter;
  fl_allocator al = counter.allocator();
  fl_pack_options po = FL_PACK_OPTIONS_INIT;
  po.allocator = &al;
  fl_pack *pack = nullptr;
  REQUIRE(fl_pack_open_default(&po, &pack, nullptr, 0) == FL_OK);
  fl_scanner_options so = FL_SCANNER_OPTIONS_INIT;
  so.allocator = &al;
  fl_scanner *s = nullptr;
  REQUIRE(fl_scanner_create(pack, &so, &s) == FL_OK);
  const size_t calls_after_create = counter.calls, peak_after_create = counter.peak;
  std::vector<std::string> events;
  std::string oom = "CUDA out of memory. Tried to allocate 20.00 MiB";

  SUBCASE("a 100 MB line without a newline, then a failure") {
    std::string chunk(1 << 20, 'x');
    std::memcpy(&chunk[100], oom.data(), oom.size());  // inside the first 64 KiB: matched, flagged
    for (int i = 0; i < 100; i++) {
      REQUIRE(fl_scanner_feed(s, chunk.data(), chunk.size(), collect, &events) == FL_OK);
      chunk.replace(100, oom.size(), std::string(oom.size(), 'x'));
    }
    std::string tail = "\n" + oom + "\n";
    REQUIRE(fl_scanner_feed(s, tail.data(), tail.size(), collect, &events) == FL_OK);
    REQUIRE(events.size() == 2);
    CHECK(events[0].rfind("1@0 cuda-out-of-memory/", 0) == 0);
    CHECK(events[0].find(" f1 ") != std::string::npos);  // truncated
    CHECK(events[1].rfind("2@104857601 cuda-out-of-memory/", 0) == 0);
  }
  SUBCASE("NUL-filled input") {
    std::string zeros(8 << 20, '\0');
    for (size_t i = 4096; i < zeros.size(); i += 4096) zeros[i] = '\n';
    REQUIRE(fl_scanner_feed(s, zeros.data(), zeros.size(), collect, &events) == FL_OK);
    std::string tail = "\n" + oom + "\n";
    REQUIRE(fl_scanner_feed(s, tail.data(), tail.size(), collect, &events) == FL_OK);
    REQUIRE(events.size() == 1);
    CHECK(events[0].find("cuda-out-of-memory/") != std::string::npos);
  }
  SUBCASE("random bytes, then a failure") {
    std::mt19937 rng(5);
    std::string junk(8 << 20, '\0');
    for (auto &c : junk) c = static_cast<char>(rng());
    REQUIRE(fl_scanner_feed(s, junk.data(), junk.size(), nullptr, nullptr) == FL_OK);
    std::string tail = "\n" + oom + "\n";
    REQUIRE(fl_scanner_feed(s, tail.data(), tail.size(), collect, &events) == FL_OK);
    REQUIRE(!events.empty());
    CHECK(events.back().find("cuda-out-of-memory/") != std::string::npos);
  }
  SUBCASE("a flood of bare carriage returns") {
    std::string crs(10 << 20, '\r');
    REQUIRE(fl_scanner_feed(s, crs.data(), crs.size(), collect, &events) == FL_OK);
    std::string tail = oom + "\n";
    REQUIRE(fl_scanner_feed(s, tail.data(), tail.size(), collect, &events) == FL_OK);
    REQUIRE(events.size() == 1);
    CHECK(events[0].rfind(std::to_string((10u << 20) + 1) + "@", 0) == 0);
  }
  CHECK(counter.calls == calls_after_create);  // feeding allocated nothing
  CHECK(counter.peak == peak_after_create);
  CHECK(counter.peak < 4u << 20);  // pack handle + scanner: small, whatever the input
  fl_scanner_free(s);
  fl_pack_free(pack);
  CHECK(counter.live == 0);
}

TEST_CASE("api: a pack freed while its scanner and diagnoser are in use lives on until they are freed") {
  // A file-mapped pack: freed too early, its mapping would be gone (ASan and
  // the kernel would both say so).
  fl_pack *pack = nullptr;
  char err[256];
  REQUIRE(fl_pack_open_file(FAULTLINE_SMALL_PACK, nullptr, &pack, err, sizeof err) == FL_OK);
  fl_scanner *s = nullptr;
  fl_diagnoser *d = nullptr;
  REQUIRE(fl_scanner_create(pack, nullptr, &s) == FL_OK);
  REQUIRE(fl_diagnoser_create(pack, nullptr, &d) == FL_OK);
  fl_pack_free(pack);
  const std::string oom = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB\n";
  std::vector<std::string> events;
  CHECK(fl_scanner_feed(s, oom.data(), oom.size(), collect, &events) == FL_OK);
  CHECK(events.size() == 1);
  fl_scanner_free(s);
  REQUIRE(fl_diagnoser_begin_source(d, "a.log") == FL_OK);
  REQUIRE(fl_diagnoser_feed(d, oom.data(), oom.size()) == FL_OK);
  REQUIRE(fl_diagnoser_end_source(d) == FL_OK);
  const char *text = nullptr;
  REQUIRE(fl_diagnoser_report(d, FL_REPORT_SUMMARY, &text, nullptr) == FL_OK);
  CHECK(std::string(text).rfind("failure: cuda-out-of-memory", 0) == 0);
  fl_diagnoser_free(d);  // the last reference: the pack goes with it
}

TEST_CASE("api: a callback can stop a feed; the scanner keeps its place") {
  Pack pack;
  std::string oom = "CUDA out of memory. Tried to allocate 20.00 MiB\n";
  fl_scanner *s = nullptr;
  REQUIRE(fl_scanner_create(pack.pack, nullptr, &s) == FL_OK);
  int calls = 0;
  auto stop = [](void *ctx, const fl_event *) { return ++*static_cast<int *>(ctx), 1; };
  std::string two = oom + oom;
  CHECK(fl_scanner_feed(s, two.data(), two.size(), stop, &calls) == FL_E_STOPPED);
  CHECK(calls == 1);
  std::vector<std::string> events;
  CHECK(fl_scanner_feed(s, oom.data(), oom.size(), collect, &events) == FL_OK);
  REQUIRE(events.size() == 1);
  CHECK(events[0].rfind("3@", 0) == 0);
  fl_scanner_stats st;
  st.struct_size = sizeof st;
  REQUIRE(fl_scanner_get_stats(s, &st) == FL_OK);
  CHECK(st.lines == 3);
  CHECK(st.events == 3);
  fl_scanner_free(s);
}

TEST_CASE("api: a callback feeding its own scanner gets FL_E_SCANNER_IN_USE") {
  Pack pack;
  fl_scanner *s = nullptr;
  REQUIRE(fl_scanner_create(pack.pack, nullptr, &s) == FL_OK);
  struct Ctx {
    fl_scanner *s;
    fl_status inner;
  } ctx{s, FL_OK};
  auto reenter = [](void *c, const fl_event *) {
    auto *x = static_cast<Ctx *>(c);
    x->inner = fl_scanner_feed(x->s, "x", 1, nullptr, nullptr);
    return 0;
  };
  std::string oom = "CUDA out of memory. Tried to allocate 20.00 MiB\n";
  CHECK(fl_scanner_feed(s, oom.data(), oom.size(), reenter, &ctx) == FL_OK);
  CHECK(ctx.inner == FL_E_SCANNER_IN_USE);
  fl_scanner_free(s);
}

TEST_CASE("api: four threads share one pack and agree with one thread") {
  Pack pack;
  std::vector<std::string> texts;
  for (const auto &p : real_logs()) texts.push_back(read_file(p));
  std::vector<std::vector<std::string>> reference;
  for (const auto &t : texts) reference.push_back(scan(pack.pack, t, {}));
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int k = 0; k < 4; k++)
    threads.emplace_back([&, k] {
      fl_scanner *s = nullptr;
      if (fl_scanner_create(pack.pack, nullptr, &s) != FL_OK) {
        mismatches++;
        return;
      }
      for (size_t i = 0; i < texts.size(); i++) {
        size_t idx = (i + static_cast<size_t>(k)) % texts.size();  // different orders
        std::vector<std::string> events;
        fl_scanner_feed(s, texts[idx].data(), texts[idx].size(), collect, &events);
        fl_scanner_finish(s, collect, &events);
        if (events != reference[idx]) mismatches++;
      }
      fl_scanner_free(s);
    });
  for (auto &t : threads) t.join();
  CHECK(mismatches == 0);
}

TEST_CASE("api: events carry the frame read from the line's prefixes") {
  Pack pack;
  struct Seen {
    int64_t rank = -2, local_rank = -2, pid = -2, device = -2;
    std::string host, time;
    int events = 0;
  };
  auto frame_of = [&](const std::string &line) {
    Seen seen;
    fl_scanner *s = nullptr;
    REQUIRE(fl_scanner_create(pack.pack, nullptr, &s) == FL_OK);
    auto fn = [](void *ctx, const fl_event *ev) {
      auto *x = static_cast<Seen *>(ctx);
      x->events++;
      x->rank = ev->rank;
      x->local_rank = ev->local_rank;
      x->pid = ev->pid;
      x->device = ev->device;
      x->host = ev->host ? std::string(ev->host, ev->host_len) : "<none>";
      x->time = ev->time ? std::string(ev->time, ev->time_len) : "<none>";
      return 0;
    };
    std::string text = line + "\n";
    REQUIRE(fl_scanner_feed(s, text.data(), text.size(), fn, &seen) == FL_OK);
    fl_scanner_free(s);
    REQUIRE(seen.events >= 1);
    return seen;
  };
  const std::string oom =
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB";

  Seen plain = frame_of(oom);
  CHECK(plain.rank == -1);
  CHECK(plain.host == "<none>");

  CHECK(frame_of("[rank5]: " + oom).rank == 5);
  CHECK(frame_of("[default3]:" + oom).local_rank == 3);
  // srun's task id and torchrun's rank on one line: the inner prefix wins.
  Seen both = frame_of(" 3: [rank13]: " + oom);
  CHECK(both.rank == 13);
  Seen srun = frame_of("12: " + oom);
  CHECK(srun.rank == 12);

  Seen nccl = frame_of(
      "node-3:1234:1300 [2] NCCL WARN NET/IB : Got completion from peer 10.0.0.7<45412> with status=12 opcode=0 len=0 vendor err "
      "129");
  CHECK(nccl.host == "node-3");
  CHECK(nccl.pid == 1234);
  CHECK(nccl.device == 2);
  CHECK(nccl.rank == -1);

  Seen ds = frame_of("[2024-05-01 12:00:00,123] [WARNING] [engine.py:123:step] " + oom);
  CHECK(ds.time == "2024-05-01 12:00:00,123");
}

// Key-dense lines that do reach it: tests/unit/work_budget_test.cpp.
TEST_CASE("api: real logs never reach the matcher's work budget") {
  Pack pack;
  fl_scanner *s = nullptr;
  REQUIRE(fl_scanner_create(pack.pack, nullptr, &s) == FL_OK);
  // Every real log, back to back in one stream: the error-dense eval cases
  // one after another are the most matching work real text asks for.
  std::vector<std::string> events;
  for (const auto &path : real_logs()) {
    const std::string text = read_file(path);
    events.clear();
    REQUIRE(fl_scanner_feed(s, text.data(), text.size(), collect, &events) == FL_OK);
    REQUIRE(fl_scanner_finish(s, collect, &events) == FL_OK);
  }
  fl_scanner_stats st{};
  st.struct_size = sizeof st;
  REQUIRE(fl_scanner_get_stats(s, &st) == FL_OK);
  CHECK(st.events > 0);
  CHECK(st.over_budget_lines == 0);

  fl_scanner_free(s);
}

namespace {

// Scans `text` cut at `cuts`, passing over (fl_scanner_skip) the pieces
// whose index is odd; returns the events.
std::vector<std::string> scan_skipping(fl_pack *pack, const std::string &text, const std::vector<size_t> &cuts) {
  fl_scanner *s = nullptr;
  REQUIRE(fl_scanner_create(pack, nullptr, &s) == FL_OK);
  std::vector<std::string> events;
  size_t at = 0;
  for (size_t i = 0; i <= cuts.size(); i++) {
    const size_t end = i < cuts.size() ? cuts[i] : text.size();
    if (i % 2)
      REQUIRE(fl_scanner_skip(s, text.data() + at, end - at, collect, &events) == FL_OK);
    else
      REQUIRE(fl_scanner_feed(s, text.data() + at, end - at, collect, &events) == FL_OK);
    at = end;
  }
  REQUIRE(fl_scanner_finish(s, collect, &events) == FL_OK);
  fl_scanner_free(s);
  return events;
}

// The offset at the start of a described event ("line@offset ...").
size_t event_offset(const std::string &e) { return std::stoull(e.substr(e.find('@') + 1)); }

// Offset of the break that ends the line starting at `start` (or the text's end).
size_t line_break_at(const std::string &text, size_t start) {
  size_t b = text.find_first_of("\r\n", start);
  return b == std::string::npos ? text.size() : b;
}

}  // namespace

TEST_CASE("api: skipped bytes keep later line numbers; lines they touch are cut, lines they miss are matched as fed") {
  Pack pack;
  std::mt19937 rng(20261204);
  size_t compared = 0, cut_heads = 0;
  for (const auto &path : real_logs()) {
    const std::string text = read_file(path);
    const auto reference = scan(pack.pack, text, {});
    for (int r = 0; r < 4; r++) {
      const auto cuts = random_cuts(rng, text.size());
      // skipped[i]: byte i was passed over.
      std::vector<bool> skipped(text.size(), false);
      for (size_t i = 0, at = 0; i <= cuts.size(); i++) {
        const size_t end = i < cuts.size() ? cuts[i] : text.size();
        if (i % 2) std::fill(skipped.begin() + static_cast<long>(at), skipped.begin() + static_cast<long>(end), true);
        at = end;
      }
      // A line is untouched when none of its bytes, its break included, was skipped.
      auto untouched = [&](size_t start) {
        const size_t end = std::min(line_break_at(text, start) + 1, text.size());
        return std::find(skipped.begin() + static_cast<long>(start), skipped.begin() + static_cast<long>(end), true) ==
               skipped.begin() + static_cast<long>(end);
      };
      const auto got = scan_skipping(pack.pack, text, cuts);
      std::vector<std::string> expected;
      for (const auto &e : reference)
        if (untouched(event_offset(e))) expected.push_back(e);
      std::vector<std::string> got_untouched;
      for (const auto &e : got) {
        const size_t at = event_offset(e);
        if (untouched(at)) {
          got_untouched.push_back(e);
          continue;
        }
        // Touched: only the head of a line fed up to a skip, flagged as cut.
        CHECK_MESSAGE(!skipped[at], path.filename().string() << ": an event on a line whose start was skipped: " << e);
        CHECK_MESSAGE(e.find(" f1 [") != std::string::npos, path.filename().string() << ": a cut line not flagged: " << e);
        cut_heads++;
      }
      CHECK_MESSAGE(got_untouched == expected, path.filename().string() << " with " << cuts.size() << " cuts");
      compared += expected.size();
    }
  }
  MESSAGE(compared << " events compared, " << cut_heads << " on lines cut by a skip");
  CHECK(compared > 0);
}

TEST_CASE("api: a diagnoser that passed over most of a log still places the failure on its line") {
  Pack pack;
  const std::string healthy = "step 100 | loss 2.345 | lr 3.0e-04\r\n";
  const std::string oom =
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a "
      "total capacity of 15.77 GiB of which 1.06 MiB is free.\n";
  std::string text;
  for (int i = 0; i < 5000; i++) text += healthy;
  const std::string head = text.substr(0, text.size() - 1);  // the skip ends between '\r' and '\n'
  text += oom;
  fl_diagnoser *d = nullptr;
  REQUIRE(fl_diagnoser_create(pack.pack, nullptr, &d) == FL_OK);
  REQUIRE(fl_diagnoser_begin_source(d, "stdout") == FL_OK);
  REQUIRE(fl_diagnoser_skip(d, head.data(), head.size()) == FL_OK);
  REQUIRE(fl_diagnoser_feed(d, text.data() + head.size(), text.size() - head.size()) == FL_OK);
  fl_diagnosis r{};
  r.struct_size = sizeof r;
  REQUIRE(fl_diagnoser_result(d, &r) == FL_OK);
  CHECK(r.verdict == FL_VERDICT_FAILURE);
  CHECK(std::string(r.source) == "stdout");
  CHECK(r.line == 5001);
  fl_diagnoser_free(d);
}

TEST_CASE("api: a scanner takes the memory docs/GUARANTEES.md states, all of it at create") {
  CountingAllocator counter;
  fl_allocator al = counter.allocator();
  Pack pack;
  for (const auto &[max_line, bound] : {std::pair<uint32_t, size_t>{0, 640u << 10}, {1u << 20, 3u << 20}}) {
    fl_scanner_options so = FL_SCANNER_OPTIONS_INIT;
    so.allocator = &al;
    so.max_line_bytes = max_line;
    fl_scanner *s = nullptr;
    REQUIRE(fl_scanner_create(pack.pack, &so, &s) == FL_OK);
    MESSAGE("scanner with max_line_bytes " << max_line << ": " << counter.live.load() << " bytes");
    CHECK(counter.live <= bound);  // GUARANTEES.md: at most 640 KB at 64 KiB lines, 3 MB at 1 MiB lines
    fl_scanner_free(s);
    CHECK(counter.live == 0);
  }
}
