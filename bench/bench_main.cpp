// The throughput benchmark: faultline beside Vectorscan, RE2::Set and the
// memchr ceiling on the same bytes (real healthy and failing logs, generated
// adversarial input), each engine's match count checked against faultline's
// before anything is timed; plus pack open, scanner creation, the whole
// diagnosis and flc's compile. bench/run turns its output into RESULTS.md.
//
//   faultline_bench [--counts FILE] [--corpus NAME=DIR]... [--library DIR] [google benchmark flags]
//   faultline_bench [--corpus NAME=DIR]... --once ENGINE CORPUS MIB
//                                              one scan of a slice (for callgrind)
//
// --corpus (repeatable) measures the logs of DIR (every file, recursively)
// instead of the built-in corpora. --library measures another signature
// library (e.g. bench/make_synthetic_library.py's ten-times library) in place
// of signatures/: flc builds its packs and pattern export first.
//
// FAULTLINE_BENCH_SCALE (default 1) divides every corpus size (smoke runs).
#include <benchmark/benchmark.h>
#include <faultline.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "corpora.h"
#include "engines.h"
#include "match/literal_filter.h"
#include "match/pack_reader.h"

namespace {

using bench::Corpus;
using bench::Engine;

size_t scaled(size_t bytes) {
  const char *env = std::getenv("FAULTLINE_BENCH_SCALE");
  const long scale = env ? std::atol(env) : 1;
  return scale > 1 ? bytes / static_cast<size_t>(scale) : bytes;
}

std::string read_file(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// The signature library measured: signatures/ (its packs built with the
// benchmark), or --library's, built here by flc.
struct Library {
  std::string signatures = FAULTLINE_BENCH_SIGNATURES;
  std::string pack = FAULTLINE_BENCH_PACK;                  // as shipped, framing included
  std::string entries_pack = FAULTLINE_BENCH_ENTRIES_PACK;  // entry patterns, '^' at the line start
  std::string patterns = FAULTLINE_BENCH_PATTERNS;          // the same, in Hyperscan's syntax
  bool own = false;                                         // --library
};
Library g_library;

bool build_library(const std::string &dir) {
  char tmpl[] = "/tmp/faultline-bench-library-XXXXXX";
  if (!mkdtemp(tmpl)) return false;
  const std::string out = tmpl, flc = FAULTLINE_BENCH_FLC;
  g_library = Library{dir, out + "/pack.flpack", out + "/entries-only.flpack", out + "/patterns.txt", true};
  for (const std::string &cmd : {flc + " compile '" + dir + "' -o " + g_library.pack,
                                 flc + " compile '" + dir + "' --no-framing -o " + g_library.entries_pack,
                                 flc + " export '" + dir + "' -o " + g_library.patterns}) {
    std::fprintf(stderr, "faultline_bench: %s\n", cmd.c_str());
    if (std::system((cmd + " >/dev/null").c_str()) != 0) return false;
  }
  return true;
}

// The measured pack, opened through the internal reader: the keys of its
// literal filter are what the near-miss corpus is made of.
std::vector<std::string> pack_keys() {
  static std::string bytes = read_file(g_library.pack);
  static std::vector<uint64_t> aligned;
  aligned.assign(bytes.size() / 8 + 1, 0);
  std::memcpy(aligned.data(), bytes.data(), bytes.size());
  faultline::PackView v;
  faultline::ErrorText err;
  std::vector<std::string> keys;
  if (faultline::open_pack_view(reinterpret_cast<const uint8_t *>(aligned.data()), bytes.size(), &v, &err) !=
      faultline::Status::kOk)
    return keys;
  const faultline::fb::LiteralFilter *f = v.root->literal_filter();
  for (const auto *list : {f ? f->long_keys() : nullptr, f ? f->short_keys() : nullptr})
    for (uint32_t i = 0; list && i < list->size(); i++)
      keys.emplace_back(reinterpret_cast<const char *>(list->Get(i)->text()->data()), list->Get(i)->text()->size());
  return keys;
}

std::string corpus_dir(const char *sub) {
  const char *env = std::getenv("FAULTLINE_CORPUS");
  return std::string(env && *env ? env : FAULTLINE_BENCH_CORPUS) + "/" + sub;
}

// --corpus NAME=DIR, in the order given: when there are any, they are the
// only corpora (anyone's own logs, measured the same way).
std::vector<std::pair<std::string, std::string>> g_user_corpora;
// --once: only this corpus is made, and only this engine (under callgrind,
// making the others, Vectorscan's database above all, would cost more than
// the measured scan).
std::string g_only;
std::string g_only_engine;

std::vector<Corpus> &corpora() {
  static std::vector<Corpus> all = [] {
    std::vector<Corpus> v;
    auto want = [](const std::string &name) { return g_only.empty() || g_only == name; };
    for (const auto &[name, dir] : g_user_corpora)
      if (want(name)) v.push_back(bench::user_logs(name, dir, scaled(64u << 20)));
    if (!g_user_corpora.empty()) return v;
    const bool docker = want(bench::kDockerJsonName);
    if (want("healthy") || docker) v.push_back(bench::real_logs("healthy", corpus_dir("healthy"), scaled(256u << 20)));
    if (want("failing")) v.push_back(bench::real_logs("failing", corpus_dir("failing"), scaled(64u << 20)));
    // One kind of log each, from the same real logs: a style a matcher can be
    // slow on shows here even when the mix of the healthy corpus hides it.
    for (const bench::Style &style : bench::styles())
      if (want(style.name))
        v.push_back(bench::style_logs(style, {corpus_dir("healthy"), corpus_dir("failing")}, scaled(64u << 20)));
    if (docker) v.push_back(bench::docker_json(v[0], scaled(64u << 20)));
    const bool adversarial = g_only.empty() || g_only.rfind("adversarial", 0) == 0;
    const std::vector<std::string> keys = adversarial ? pack_keys() : std::vector<std::string>{};
    if (adversarial) {
      Corpus near = bench::near_misses(keys, scaled(64u << 20));
      v.push_back(bench::giant_line(near, scaled(64u << 20)));
      v.push_back(std::move(near));
      v.push_back(bench::key_dense(keys, 64u << 10, scaled(16u << 20)));
      v.push_back(bench::key_dense(keys, 256, scaled(16u << 20)));
      v.push_back(bench::newline_every_byte(scaled(64u << 20)));
      v.push_back(bench::nul_binary(scaled(64u << 20)));
    }
    return v;
  }();
  return all;
}

constexpr size_t kChunk = 1 << 20;  // what `faultline diagnose` reads at a time

struct Engines {
  std::vector<std::unique_ptr<Engine>> list;
  std::vector<std::string> missing;  // engines that could not run, and why
};

Engines &engines() {
  static Engines e = [] {
    Engines out;
    auto want = [](const char *name) { return g_only_engine.empty() || g_only_engine == name; };
    // The reference: the same entry patterns as the baselines, '^' at the line start.
    if (want("faultline")) out.list.push_back(bench::make_faultline(kChunk, g_library.entries_pack, "faultline", true));
    using Maker = std::unique_ptr<Engine> (*)(const std::vector<std::string> &, std::string *);
    const std::pair<const char *, Maker> baselines[] = {
        {"Vectorscan (block)",
         +[](const std::vector<std::string> &p, std::string *w) { return bench::make_vectorscan_block(p, w); }},
        {"Vectorscan (streaming)",
         +[](const std::vector<std::string> &p, std::string *w) { return bench::make_vectorscan_stream(p, kChunk, w); }},
        {"RE2::Set (per line)", +[](const std::vector<std::string> &p, std::string *w) { return bench::make_re2_set(p, w); }},
    };
    std::vector<std::string> patterns;
    std::string why;
    for (const auto &[name, make] : baselines) {
      if (!want(name)) continue;
      if (patterns.empty()) patterns = bench::read_exported_patterns(g_library.patterns);
      why.clear();
      if (auto engine = make(patterns, &why))
        out.list.push_back(std::move(engine));
      else
        out.missing.push_back(why);
    }
    // As shipped: log prefixes peeled, '^' read behind them (not counted: it
    // matches more than a line-start '^' can).
    if (want("faultline (shipped pack, framing)"))
      out.list.push_back(
          bench::make_faultline(kChunk, g_library.own ? g_library.pack : "", "faultline (shipped pack, framing)", false));
    if (want("memchr (ceiling)")) out.list.push_back(bench::make_memchr());
    return out;
  }();
  return e;
}

// `text` as a JSON string: corpus names come from the command line and
// descriptions quote log formats ({"log":"..."}).
std::string json_quoted(const std::string &text) {
  std::string out = "\"";
  for (const unsigned char ch : text) {
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += static_cast<char>(ch);
    } else if (ch < 0x20) {
      char esc[8];
      std::snprintf(esc, sizeof esc, "\\u%04x", ch);
      out += esc;
    } else {
      out += static_cast<char>(ch);
    }
  }
  return out + "\"";
}

// Every engine's count on every corpus, against faultline's. Returns false
// on any disagreement: throughput of an engine that matches differently
// means nothing.
bool check_counts(const std::string &out_path) {
  bool agree = true;
  std::string json = "{\n  \"counts\": [\n";
  for (const Corpus &c : corpora()) {
    uint64_t reference = 0;
    for (size_t i = 0; i < engines().list.size(); i++) {
      Engine &e = *engines().list[i];
      if (!e.counts()) continue;
      const uint64_t n = e.scan(c.bytes);
      if (i == 0) reference = n;
      const bool same = n == reference;
      agree = agree && (same || c.over_work_budget);
      std::fprintf(stderr, "count  %-44s %-24s %12llu %s\n", c.name.c_str(), e.name().c_str(), static_cast<unsigned long long>(n),
                   same                 ? ""
                   : c.over_work_budget ? "(more than faultline, whose work budget cut these lines)"
                                        : "DISAGREES with faultline");
      json += "    {\"corpus\": " + json_quoted(c.name) + ", \"engine\": " + json_quoted(e.name()) +
              ", \"matches\": " + std::to_string(n) + ", \"agrees\": " + (same ? "true" : "false") + "},\n";
    }
  }
  if (json.back() == '\n' && json[json.size() - 2] == ',') json.erase(json.size() - 2, 1);
  json += "  ],\n  \"corpora\": [\n";
  for (const Corpus &c : corpora())
    json += "    {\"name\": " + json_quoted(c.name) + ", \"bytes\": " + std::to_string(c.bytes.size()) +
            ", \"description\": " + json_quoted(c.description) +
            ", \"over_work_budget\": " + (c.over_work_budget ? "true" : "false") + "},\n";
  json.erase(json.size() - 2, 1);
  json += "  ],\n  \"missing\": [";
  for (size_t i = 0; i < engines().missing.size(); i++) {
    std::string m = engines().missing[i];
    for (auto &ch : m)
      if (ch == '"' || ch == '\\') ch = '\'';
    json += (i ? ", \"" : "\"") + m + "\"";
  }
  json += "],\n  \"short_key_kernel\": \"" + std::string(faultline::literal_short_kernel()) + "\"\n}\n";
  if (!out_path.empty()) std::ofstream(out_path) << json;
  for (const auto &m : engines().missing) std::fprintf(stderr, "engine missing: %s\n", m.c_str());
  return agree;
}

void scan_benchmark(benchmark::State &st, size_t corpus, size_t engine) {
  const Corpus &c = corpora()[corpus];
  Engine &e = *engines().list[engine];
  uint64_t matches = 0;
  for (auto _ : st) matches = e.scan(c.bytes);
  benchmark::DoNotOptimize(matches);
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations()) * static_cast<int64_t>(c.bytes.size()));
  st.counters["matches"] = static_cast<double>(matches);
  const double lines = static_cast<double>(std::count(c.bytes.begin(), c.bytes.end(), '\n'));
  st.counters["lines/s"] = benchmark::Counter(lines * static_cast<double>(st.iterations()), benchmark::Counter::kIsRate);
}

void pack_open_verify(benchmark::State &st) {
  const std::string bytes = read_file(g_library.pack);
  for (auto _ : st) {
    fl_pack *p = nullptr;
    if (fl_pack_open_memory(bytes.data(), bytes.size(), nullptr, &p, nullptr, 0) != FL_OK) st.SkipWithError("pack does not open");
    fl_pack_free(p);
  }
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations()) * static_cast<int64_t>(bytes.size()));
}

void scanner_create(benchmark::State &st) {
  fl_pack *p = nullptr;
  const std::string bytes = g_library.own ? read_file(g_library.pack) : std::string();
  if (g_library.own)
    fl_pack_open_memory(bytes.data(), bytes.size(), nullptr, &p, nullptr, 0);
  else
    fl_pack_open_default(nullptr, &p, nullptr, 0);
  for (auto _ : st) {
    fl_scanner *s = nullptr;
    fl_scanner_create(p, nullptr, &s);
    fl_scanner_free(s);
  }
  fl_pack_free(p);
}

// The whole diagnosis an embedder runs: scan, evidence, report.
void diagnose(benchmark::State &st, size_t corpus) {
  const Corpus &c = corpora()[corpus];
  fl_pack *pack = nullptr;
  fl_pack_open_default(nullptr, &pack, nullptr, 0);
  for (auto _ : st) {
    fl_diagnoser *d = nullptr;
    fl_diagnoser_create(pack, nullptr, &d);
    fl_diagnoser_begin_source(d, "corpus");
    for (size_t at = 0; at < c.bytes.size(); at += kChunk)
      fl_diagnoser_feed(d, c.bytes.data() + at, std::min(kChunk, c.bytes.size() - at));
    const char *json = nullptr;
    size_t len = 0;
    fl_diagnoser_report(d, FL_REPORT_JSON, &json, &len);
    benchmark::DoNotOptimize(json);
    fl_diagnoser_free(d);
  }
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations()) * static_cast<int64_t>(c.bytes.size()));
  fl_pack_free(pack);
}

void flc_compile(benchmark::State &st) {
  const std::string cmd =
      std::string(FAULTLINE_BENCH_FLC) + " compile '" + g_library.signatures + "' -o /tmp/faultline-bench.flpack >/dev/null 2>&1";
  for (auto _ : st)
    if (std::system(cmd.c_str()) != 0) st.SkipWithError("flc compile failed");
}

// --once ENGINE CORPUS MIB: one scan of the first MIB of a corpus, in a
// function callgrind can be told to count alone (--toggle-collect).
__attribute__((noinline)) uint64_t measured_scan(Engine &e, const std::string &text) { return e.scan(text); }

int run_once(const std::string &engine, const std::string &corpus, size_t mib) {
  for (const Corpus &c : corpora()) {
    if (c.name != corpus) continue;
    std::string slice = c.bytes.substr(0, mib << 20);
    slice.resize(slice.rfind('\n') + 1);
    for (auto &e : engines().list) {
      if (e->name() != engine) continue;
      // Warm up on the same bytes: first-use work stays out of the count, and
      // a work budget's reserve is spent as in the benchmarks (which follow
      // the count check): what is counted is the steady state.
      e->scan(slice);
      const uint64_t n = measured_scan(*e, slice);
      std::printf("%s on %zu bytes of %s: %llu matches\n", engine.c_str(), slice.size(), corpus.c_str(),
                  static_cast<unsigned long long>(n));
      return 0;
    }
  }
  std::fprintf(stderr, "faultline_bench: no engine '%s' or corpus '%s'\n", engine.c_str(), corpus.c_str());
  return 2;
}

}  // namespace

int main(int argc, char **argv) {
  std::string counts_path;
  std::vector<std::string> once;  // ENGINE CORPUS MIB
  std::vector<char *> args{argv[0]};
  for (int i = 1; i < argc; i++) {
    if (!std::strcmp(argv[i], "--counts") && i + 1 < argc) {
      counts_path = argv[++i];
    } else if (!std::strcmp(argv[i], "--corpus") && i + 1 < argc) {
      const std::string spec = argv[++i];
      const size_t eq = spec.find('=');
      if (eq == 0 || eq == std::string::npos || eq + 1 == spec.size() || spec.find('/') < eq) {
        std::fprintf(stderr, "faultline_bench: --corpus takes NAME=DIR, not '%s'\n", spec.c_str());
        return 2;
      }
      g_user_corpora.emplace_back(spec.substr(0, eq), spec.substr(eq + 1));
    } else if (!std::strcmp(argv[i], "--library") && i + 1 < argc) {
      if (!build_library(argv[++i])) {
        std::fprintf(stderr, "faultline_bench: flc could not build the library '%s'\n", argv[i]);
        return 2;
      }
    } else if (!std::strcmp(argv[i], "--once") && i + 3 < argc) {
      once = {argv[i + 1], argv[i + 2], argv[i + 3]};
      i += 3;
    } else {
      args.push_back(argv[i]);
    }
  }
  if (!once.empty()) {
    g_only = once[1];
    g_only_engine = once[0];
    return run_once(once[0], once[1], std::strtoul(once[2].c_str(), nullptr, 10));
  }
  int n = static_cast<int>(args.size());
  benchmark::Initialize(&n, args.data());
  for (const Corpus &c : corpora()) {
    if (!c.bytes.empty()) continue;
    if (g_user_corpora.empty() && &c == &corpora()[0])
      std::fprintf(stderr, "faultline_bench: no logs under %s (set FAULTLINE_CORPUS)\n", corpus_dir("healthy").c_str());
    else
      std::fprintf(stderr, "faultline_bench: corpus '%s' is empty (%s)\n", c.name.c_str(), c.description.c_str());
    return 2;
  }
  const bool agree = check_counts(counts_path);
  for (size_t c = 0; c < corpora().size(); c++)
    for (size_t e = 0; e < engines().list.size(); e++)
      benchmark::RegisterBenchmark(("scan/" + corpora()[c].name + "/" + engines().list[e]->name()).c_str(), scan_benchmark, c, e)
          ->Unit(benchmark::kMillisecond)
          ->MinTime(1.0);
  benchmark::RegisterBenchmark(g_library.own ? "pack open + verify (library pack)" : "pack open + verify (default pack)",
                               pack_open_verify)
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("scanner create", scanner_create)->Unit(benchmark::kMicrosecond);
  // The whole diagnosis on the real logs: the healthy and failing corpora, or every --corpus.
  for (size_t c = 0; c < (g_user_corpora.empty() ? 2 : corpora().size()); c++)
    benchmark::RegisterBenchmark(("diagnose/" + corpora()[c].name).c_str(), diagnose, c)
        ->Unit(benchmark::kMillisecond)
        ->MinTime(2.0);
  benchmark::RegisterBenchmark(g_library.own ? "flc compile (library)" : "flc compile signatures/", flc_compile)
      ->Unit(benchmark::kMillisecond)
      ->Iterations(3);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (!agree) std::fprintf(stderr, "faultline_bench: match counts disagree between engines (see 'count' lines above)\n");
  return agree ? 0 : 1;
}
