// The diagnoser through faultline.h only (plus XXH64 to re-hash mutated
// partials): argument checks, chunking independence, bounded memory on
// hostile logs, allocation failures, partial round trips and hostile
// partials, threads.
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/hash.h"
#include "counting_allocator.h"
#include "faultline.h"

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path &p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

struct DefaultPack {
  fl_pack *pack = nullptr;
  DefaultPack() {
    char err[256];
    REQUIRE(fl_pack_open_default(nullptr, &pack, err, sizeof err) == FL_OK);
  }
  ~DefaultPack() { fl_pack_free(pack); }
};

// Diagnoses (name, text) sources, each fed in the given chunk size (0 = whole).
std::string diagnose(fl_pack *pack, const std::vector<std::pair<std::string, std::string>> &sources, int format, size_t chunk = 0,
                     const fl_diagnoser_options *opts = nullptr) {
  fl_diagnoser *d = nullptr;
  REQUIRE(fl_diagnoser_create(pack, opts, &d) == FL_OK);
  for (const auto &[name, text] : sources) {
    REQUIRE(fl_diagnoser_begin_source(d, name.c_str()) == FL_OK);
    size_t step = chunk ? chunk : text.size() + 1;
    for (size_t at = 0; at < text.size(); at += step)
      REQUIRE(fl_diagnoser_feed(d, text.data() + at, std::min(step, text.size() - at)) == FL_OK);
    REQUIRE(fl_diagnoser_end_source(d) == FL_OK);
  }
  const char *out = nullptr;
  size_t len = 0;
  REQUIRE(fl_diagnoser_report(d, format, &out, &len) == FL_OK);
  REQUIRE(out != nullptr);
  CHECK(std::strlen(out) == len);
  std::string s(out, len);
  fl_diagnoser_free(d);
  return s;
}

std::string log_path(const char *name) { return std::string(FAULTLINE_TEST_DATA) + "/logs/" + name; }

}  // namespace

TEST_CASE("diagnoser: argument checks") {
  DefaultPack p;
  fl_diagnoser *d = reinterpret_cast<fl_diagnoser *>(1);
  CHECK(fl_diagnoser_create(nullptr, nullptr, &d) == FL_E_INVALID_ARG);
  CHECK(d == nullptr);
  CHECK(fl_diagnoser_create(p.pack, nullptr, nullptr) == FL_E_INVALID_ARG);
  fl_diagnoser_options bad = FL_DIAGNOSER_OPTIONS_INIT;
  bad.struct_size = 4;
  CHECK(fl_diagnoser_create(p.pack, &bad, &d) == FL_E_INVALID_ARG);
  REQUIRE(fl_diagnoser_create(p.pack, nullptr, &d) == FL_OK);
  CHECK(fl_diagnoser_begin_source(d, nullptr) == FL_E_INVALID_ARG);
  CHECK(fl_diagnoser_feed(d, nullptr, 5) == FL_E_INVALID_ARG);
  CHECK(fl_diagnoser_feed(d, nullptr, 0) == FL_OK);
  const char *text = "x";
  size_t len = 9;
  CHECK(fl_diagnoser_report(d, 99, &text, &len) == FL_E_INVALID_ARG);
  CHECK(text == nullptr);
  CHECK(len == 0);
  fl_diagnosis r{};
  CHECK(fl_diagnoser_result(d, &r) == FL_E_INVALID_ARG);  // struct_size unset
  CHECK(fl_diagnoser_merge_partial(d, "junk", 4) == FL_E_INVALID_ARG);
  CHECK(std::strstr(fl_diagnoser_errmsg(d), "partial") != nullptr);
  fl_diagnoser_free(d);
  fl_diagnoser_free(nullptr);
}

TEST_CASE("diagnoser: no input is no failure; a real OOM log is a failure with its fix") {
  DefaultPack p;
  std::string empty = diagnose(p.pack, {}, FL_REPORT_JSON);
  CHECK(empty.find("\"verdict\": \"no-failure\"") != std::string::npos);
  CHECK(empty.find("\"root\": null") != std::string::npos);

  std::string json = diagnose(p.pack, {{"A052.log", slurp(log_path("A052.log"))}}, FL_REPORT_JSON);
  CHECK(json.find("\"schema\": \"faultline.report/2\"") != std::string::npos);
  CHECK(json.find("\"verdict\": \"failure\"") != std::string::npos);
  CHECK(json.find("\"type\": \"cuda_oom\"") != std::string::npos);
  std::string summary = diagnose(p.pack, {{"A052.log", slurp(log_path("A052.log"))}}, FL_REPORT_SUMMARY);
  CHECK(summary.rfind("failure: ", 0) == 0);
  CHECK(summary.size() < 1024);
  CHECK(summary.find('\n') == std::string::npos);

  fl_diagnoser *d = nullptr;
  REQUIRE(fl_diagnoser_create(p.pack, nullptr, &d) == FL_OK);
  std::string text = slurp(log_path("B043.log"));
  REQUIRE(fl_diagnoser_feed(d, text.data(), text.size()) == FL_OK);  // no begin_source: stream "-"
  fl_diagnosis r{};
  r.struct_size = sizeof r;
  REQUIRE(fl_diagnoser_result(d, &r) == FL_OK);
  CHECK(r.verdict == FL_VERDICT_FAILURE);
  REQUIRE(r.entry < fl_pack_entry_count(p.pack));
  CHECK(std::string(fl_pack_entry_type(p.pack, r.entry)) == "host_oom");
  CHECK(std::string(r.action) == "add-resources");
  CHECK(std::strncmp(r.fingerprint, "fp1:", 4) == 0);
  fl_diagnoser_free(d);
}

TEST_CASE("diagnoser: the report is the same however the logs are chunked") {
  DefaultPack p;
  for (const char *name : {"A009.log", "A052.log", "B043.log", "B063.log"}) {
    std::vector<std::pair<std::string, std::string>> src = {{name, slurp(log_path(name))}};
    std::string whole = diagnose(p.pack, src, FL_REPORT_JSON);
    for (size_t chunk : {1, 7, 64, 4096}) CHECK(diagnose(p.pack, src, FL_REPORT_JSON, chunk) == whole);
  }
}

TEST_CASE("diagnoser: hostile logs keep memory bounded and reports valid") {
  DefaultPack p;
  CountingAllocator counter;
  fl_allocator al = counter.allocator();
  fl_diagnoser_options o = FL_DIAGNOSER_OPTIONS_INIT;
  o.allocator = &al;
  // 300,000 OOM lines on distinct ranks and hosts: far more groups than the bound.
  std::string flood;
  for (int i = 0; i < 300000; i++)
    flood += "[rank" + std::to_string(i) + "]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0\n";
  std::mt19937 rng(7);
  std::string junk(1 << 20, '\0');
  for (auto &c : junk) c = static_cast<char>(rng());
  std::string nul(1 << 20, '\0'), cr(1 << 20, '\r');
  std::string json = diagnose(p.pack, {{"flood", flood}, {"junk", junk}, {"nul", nul}, {"cr", cr}}, FL_REPORT_JSON, 65536, &o);
  CHECK(json.find("\"verdict\": \"failure\"") != std::string::npos);
  CHECK(json.find("\"dropped_events\": 0") == std::string::npos);  // the bound was reached and said so
  CHECK(counter.live == 0);
  CHECK(counter.peak < 256u << 20);
  // The JSON is valid UTF-8 without raw control bytes, whatever the input.
  for (unsigned char c : json) CHECK((c >= 0x20 || c == '\n'));
}

TEST_CASE("diagnoser: partials round-trip; hostile partials are refused or harmless") {
  DefaultPack p;
  std::vector<std::pair<std::string, std::string>> src;
  for (const char *name : {"A009.log", "A052.log", "B043.log", "B063.log"}) src.push_back({name, slurp(log_path(name))});
  std::string whole = diagnose(p.pack, src, FL_REPORT_JSON);

  fl_diagnoser *a = nullptr, *b = nullptr;
  REQUIRE(fl_diagnoser_create(p.pack, nullptr, &a) == FL_OK);
  REQUIRE(fl_diagnoser_create(p.pack, nullptr, &b) == FL_OK);
  for (const auto &[name, text] : src) {
    fl_diagnoser_begin_source(a, name.c_str());
    fl_diagnoser_feed(a, text.data(), text.size());
  }
  const void *bytes = nullptr;
  size_t len = 0;
  REQUIRE(fl_diagnoser_partial(a, &bytes, &len) == FL_OK);
  std::string partial(static_cast<const char *>(bytes), len);
  REQUIRE(fl_diagnoser_merge_partial(b, partial.data(), partial.size()) == FL_OK);
  const char *json = nullptr;
  REQUIRE(fl_diagnoser_report(b, FL_REPORT_JSON, &json, nullptr) == FL_OK);
  CHECK(std::string(json) == whole);
  fl_diagnoser_free(a);
  fl_diagnoser_free(b);

  // Mutations with a recomputed hash reach the structural checks.
  std::mt19937 rng(11);
  int refused = 0;
  for (int i = 0; i < 3000; i++) {
    std::string m = partial;
    int flips = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < flips; k++) {
      size_t at = 32 + rng() % (m.size() - 32);
      m[at] = static_cast<char>(rng());
    }
    if (rng() % 4 == 0) m.resize(32 + rng() % (m.size() - 32));
    uint64_t payload = m.size() - 32, h = faultline::xxh64(m.data() + 32, payload);
    std::memcpy(&m[16], &payload, 8);
    std::memcpy(&m[24], &h, 8);
    fl_diagnoser *d = nullptr;
    REQUIRE(fl_diagnoser_create(p.pack, nullptr, &d) == FL_OK);
    fl_status st = fl_diagnoser_merge_partial(d, m.data(), m.size());
    if (st != FL_OK) {
      CHECK(st == FL_E_INVALID_ARG);
      refused++;
    }
    const char *out = nullptr;
    CHECK(fl_diagnoser_report(d, FL_REPORT_TEXT, &out, nullptr) == FL_OK);
    fl_diagnoser_free(d);
  }
  CHECK(refused > 0);
}

// The watchdog line of PyTorch's ProcessGroupNCCL (pytorch#104446's shape).
std::string watchdog(int rank, const char *op) {
  return "[rank" + std::to_string(rank) + "]:[E ProcessGroupNCCL.cpp:563] [Rank " + std::to_string(rank) +
         "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=4084, OpType=" + op +
         ", NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600077 milliseconds before timing out.\n";
}

std::string report_of(fl_diagnoser *d) {
  const char *json = nullptr;
  REQUIRE(fl_diagnoser_report(d, FL_REPORT_JSON, &json, nullptr) == FL_OK);
  return json;
}

TEST_CASE("diagnoser: collectives in different orders, inferred from all the evidence there is") {
  DefaultPack p;
  const std::string rank0 = watchdog(0, "ALLREDUCE"), rank1 = watchdog(1, "BROADCAST");
  const std::string whole = diagnose(p.pack, {{"a.log", rank0}, {"b.log", rank1}}, FL_REPORT_JSON);
  CHECK(whole.find("\"collective-mismatch\"") != std::string::npos);

  // Either node's diagnoser merging the other's partial reads the same.
  for (int first = 0; first < 2; first++) {
    fl_diagnoser *own = nullptr, *other = nullptr;
    REQUIRE(fl_diagnoser_create(p.pack, nullptr, &own) == FL_OK);
    REQUIRE(fl_diagnoser_create(p.pack, nullptr, &other) == FL_OK);
    const char *own_name = first ? "b.log" : "a.log", *other_name = first ? "a.log" : "b.log";
    const std::string &own_text = first ? rank1 : rank0, &other_text = first ? rank0 : rank1;
    REQUIRE(fl_diagnoser_begin_source(own, own_name) == FL_OK);
    REQUIRE(fl_diagnoser_feed(own, own_text.data(), own_text.size()) == FL_OK);
    REQUIRE(fl_diagnoser_begin_source(other, other_name) == FL_OK);
    REQUIRE(fl_diagnoser_feed(other, other_text.data(), other_text.size()) == FL_OK);
    const void *bytes = nullptr;
    size_t len = 0;
    REQUIRE(fl_diagnoser_partial(other, &bytes, &len) == FL_OK);
    REQUIRE(fl_diagnoser_merge_partial(own, bytes, len) == FL_OK);
    CHECK(report_of(own) == whole);
    fl_diagnoser_free(own);
    fl_diagnoser_free(other);
  }

  // A report before the last rank's line, then the line: with two ranks in
  // ALLREDUCE, rank 1's BROADCAST is the odd one out (the first report could
  // not name a rank, the second must).
  fl_diagnoser *live = nullptr;
  REQUIRE(fl_diagnoser_create(p.pack, nullptr, &live) == FL_OK);
  REQUIRE(fl_diagnoser_begin_source(live, "job.log") == FL_OK);
  REQUIRE(fl_diagnoser_feed(live, rank0.data(), rank0.size()) == FL_OK);
  REQUIRE(fl_diagnoser_feed(live, rank1.data(), rank1.size()) == FL_OK);
  fl_diagnosis r{};
  r.struct_size = sizeof r;
  REQUIRE(fl_diagnoser_result(live, &r) == FL_OK);
  const uint32_t mismatch = fl_pack_find_entry(p.pack, "collective-mismatch");
  CHECK(r.entry == mismatch);
  CHECK(r.rank == -1);
  const std::string rank2 = watchdog(2, "ALLREDUCE");
  REQUIRE(fl_diagnoser_feed(live, rank2.data(), rank2.size()) == FL_OK);
  REQUIRE(fl_diagnoser_result(live, &r) == FL_OK);
  CHECK(r.entry == mismatch);
  CHECK(r.rank == 1);
  fl_diagnoser_free(live);
}

TEST_CASE("diagnoser: threads with one pack agree with one thread") {
  DefaultPack p;
  std::vector<std::pair<std::string, std::string>> src = {{"A052.log", slurp(log_path("A052.log"))},
                                                          {"B063.log", slurp(log_path("B063.log"))}};
  std::string want = diagnose(p.pack, src, FL_REPORT_JSON);
  std::vector<std::string> got(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; t++)
    threads.emplace_back([&, t] {
      fl_diagnoser *d = nullptr;
      if (fl_diagnoser_create(p.pack, nullptr, &d) != FL_OK) return;
      for (int rep = 0; rep < 3; rep++) {
        for (const auto &[name, text] : src) {
          fl_diagnoser_begin_source(d, name.c_str());
          fl_diagnoser_feed(d, text.data(), text.size());
        }
      }
      fl_diagnoser_free(d);
      got[t] = diagnose(p.pack, src, FL_REPORT_JSON, 100 + t);
    });
  for (auto &th : threads) th.join();
  for (const auto &g : got) CHECK(g == want);
}
