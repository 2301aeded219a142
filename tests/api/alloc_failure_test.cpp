// Allocation-failure injection. Along pack open, scanner creation and
// diagnosis (sources, reports in every format, partials and merging), the
// Nth allocation fails for every N in turn: each call must then return
// FL_E_NOMEM, and once the objects are freed no byte is left allocated.
//
// The library names the source line of every allocation (alloc.h), so the
// test knows which sites it failed and counts them. Every line in libcore
// that calls the allocator directly must be among them, or a site would
// escape this test.
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/alloc.h"
#include "faultline.h"

namespace fs = std::filesystem;

namespace {

using Site = std::string;  // "file.cpp:123"

// Records the site of each allocation, in order, while a test runs.
std::vector<Site> g_sites;

void record_site(const char *file, unsigned line) {
  g_sites.push_back(fs::path(file).filename().string() + ":" + std::to_string(line));
}

struct SiteRecorder {
  SiteRecorder() {
    g_sites.clear();
    faultline::g_alloc_site_hook.store(record_site);
  }
  ~SiteRecorder() { faultline::g_alloc_site_hook.store(nullptr); }
};

// Fails its Nth allocation (1-based; 0: none) and counts live bytes.
struct FailingAllocator {
  size_t calls = 0, fail_at = 0, live = 0;
  static void *alloc(void *ctx, size_t n) {
    auto *a = static_cast<FailingAllocator *>(ctx);
    if (++a->calls == a->fail_at) return nullptr;
    auto *p = static_cast<size_t *>(std::malloc(n + 16));
    if (!p) return nullptr;
    p[0] = n;
    a->live += n;
    return p + 2;
  }
  static void release(void *ctx, void *ptr) {
    if (!ptr) return;
    auto *p = static_cast<size_t *>(ptr) - 2;
    static_cast<FailingAllocator *>(ctx)->live -= p[0];
    std::free(p);
  }
};

std::string slurp(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// One path through the API with every allocation on `al`. Returns the first
// status that is not FL_OK (or FL_OK) after freeing everything it made.
using Path = fl_status (*)(const fl_allocator *al, const void *ctx);

// Runs `path` once to record its allocation sites, then once per allocation
// with that allocation failing. Returns the distinct sites it failed.
std::set<Site> fail_every_allocation(Path path, const void *ctx) {
  std::vector<Site> sites;
  {
    SiteRecorder rec;
    FailingAllocator a;
    fl_allocator al{FailingAllocator::alloc, FailingAllocator::release, &a};
    REQUIRE(path(&al, ctx) == FL_OK);
    CHECK(a.live == 0);
    REQUIRE(g_sites.size() == a.calls);  // every allocation named its site
    sites = g_sites;
  }
  std::set<Site> failed;
  for (size_t n = 1; n <= sites.size(); n++) {
    SiteRecorder rec;
    FailingAllocator a;
    a.fail_at = n;
    fl_allocator al{FailingAllocator::alloc, FailingAllocator::release, &a};
    fl_status st = path(&al, ctx);
    INFO("allocation " << n << " at " << sites[n - 1]);
    CHECK(st == FL_E_NOMEM);
    CHECK(a.live == 0);
    // The same allocation as in the clean run failed: the path is deterministic.
    REQUIRE(g_sites.size() >= n);
    CHECK(g_sites[n - 1] == sites[n - 1]);
    failed.insert(sites[n - 1]);
  }
  MESSAGE(sites.size() << " allocations at " << failed.size() << " sites, each failed in turn");
  return failed;
}

// ---- The paths ------------------------------------------------------------

fl_status open_default(const fl_allocator *al, const void *) {
  fl_pack_options po = FL_PACK_OPTIONS_INIT;
  po.allocator = al;
  fl_pack *pack = nullptr;
  fl_status st = fl_pack_open_default(&po, &pack, nullptr, 0);
  if (st != FL_OK && pack) return FL_E_INVALID_ARG;  // no handle on failure
  fl_pack_free(pack);
  return st;
}

fl_status open_file(const fl_allocator *al, const void *) {
  fl_pack_options po = FL_PACK_OPTIONS_INIT;
  po.allocator = al;
  fl_pack *pack = nullptr;
  fl_status st = fl_pack_open_file(FAULTLINE_SMALL_PACK, &po, &pack, nullptr, 0);
  fl_pack_free(pack);
  return st;
}

// A pack file whose signature is checked: read into memory the pack owns
// (not mapped). The verifier accepts any signature: only the library's own
// allocations are at stake here (tests/api/signature_test.cpp checks real ones).
fl_status open_signed_file(const fl_allocator *al, const void *ctx) {
  fl_pack_verifier anyone{[](void *, const void *, size_t, const void *, size_t, char *signer, size_t n) {
                            std::snprintf(signer, n, "anyone");
                            return FL_OK;
                          },
                          nullptr};
  fl_pack_options po = FL_PACK_OPTIONS_INIT;
  po.allocator = al;
  po.verifier = &anyone;
  po.flags = FL_PACK_REQUIRE_SIGNATURE;
  fl_pack *pack = nullptr;
  fl_status st = fl_pack_open_file(static_cast<const fs::path *>(ctx)->c_str(), &po, &pack, nullptr, 0);
  if (st == FL_OK && std::strcmp(fl_pack_signer(pack), "anyone") != 0) st = FL_E_INVALID_ARG;
  fl_pack_free(pack);
  return st;
}

fl_status open_and_scan(const fl_allocator *al, const void *) {
  fl_pack_options po = FL_PACK_OPTIONS_INIT;
  po.allocator = al;
  fl_pack *pack = nullptr;
  fl_status st = fl_pack_open_default(&po, &pack, nullptr, 0);
  if (st != FL_OK) return st;
  fl_scanner_options so = FL_SCANNER_OPTIONS_INIT;
  so.allocator = al;
  fl_scanner *s = nullptr;
  st = fl_scanner_create(pack, &so, &s);
  if (st == FL_OK) {
    // Feeding allocates nothing (fl_scanner_create's promise): any
    // allocation here would be counted and failed like the others.
    static const char line[] = "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n";
    st = fl_scanner_feed(s, line, sizeof line - 1, nullptr, nullptr);
    if (st == FL_OK) st = fl_scanner_finish(s, nullptr, nullptr);
  }
  if (st != FL_OK && s) st = FL_E_INVALID_ARG;  // no handle on failure
  fl_scanner_free(s);
  fl_pack_free(pack);
  return st;
}

// A stack of the default pack and the example site pack, in a reload slot, and a scanner on it.
fl_status stack_and_scan(const fl_allocator *al, const void *) {
  fl_pack_options po = FL_PACK_OPTIONS_INIT;
  po.allocator = al;
  fl_pack *ours = nullptr, *site = nullptr, *stack = nullptr;
  fl_status st = fl_pack_open_default(&po, &ours, nullptr, 0);
  if (st == FL_OK) st = fl_pack_open_file(FAULTLINE_SITE_PACK, &po, &site, nullptr, 0);
  if (st == FL_OK) {
    const fl_pack *both[] = {ours, site};
    st = fl_pack_stack(both, 2, &po, &stack, nullptr, 0);
    if (st != FL_OK && stack) st = FL_E_INVALID_ARG;  // no handle on failure
  }
  // Through a hot-reload slot, as a long-running host takes its pack.
  fl_pack_slot *slot = nullptr;
  if (st == FL_OK) {
    st = fl_pack_slot_create(stack, al, &slot);
    if (st != FL_OK && slot) st = FL_E_INVALID_ARG;
  }
  fl_pack *current = st == FL_OK ? fl_pack_slot_get(slot) : nullptr;
  fl_scanner *s = nullptr;
  if (st == FL_OK) {
    fl_scanner_options so = FL_SCANNER_OPTIONS_INIT;
    so.allocator = al;
    st = fl_scanner_create(current, &so, &s);
    static const char line[] =
        "error: prolog failed: rc:1 output:ERROR:  nhc:  Health check failed:  check_gpu_count:  Expected 8\n";
    if (st == FL_OK) st = fl_scanner_feed(s, line, sizeof line - 1, nullptr, nullptr);
    if (st != FL_OK && s) st = FL_E_INVALID_ARG;
  }
  fl_scanner_free(s);
  fl_pack_free(current);
  fl_pack_slot_free(slot);
  fl_pack_free(stack);
  fl_pack_free(site);
  fl_pack_free(ours);
  return st;
}

// A job: named sources and their bytes.
using Job = std::vector<std::pair<std::string, std::string>>;

struct DiagnosisCtx {
  const fl_pack *pack;
  Job job;
};

// Everything a launcher or collector does with a diagnoser: feed the sources
// in two chunks each, render every report format and the numeric result, save
// a partial, and merge it into a second diagnoser that reports again.
fl_status diagnose(const fl_allocator *al, const void *ctx) {
  auto *c = static_cast<const DiagnosisCtx *>(ctx);
  fl_diagnoser_options o = FL_DIAGNOSER_OPTIONS_INIT;
  o.allocator = al;
  fl_diagnoser *d = nullptr, *merged = nullptr;
  fl_status st = fl_diagnoser_create(c->pack, &o, &d);
  for (const auto &[name, text] : c->job) {
    if (st == FL_OK) st = fl_diagnoser_begin_source(d, name.c_str());
    size_t half = text.size() / 2;
    if (st == FL_OK) st = fl_diagnoser_feed(d, text.data(), half);
    if (st == FL_OK) st = fl_diagnoser_feed(d, text.data() + half, text.size() - half);
    if (st == FL_OK) st = fl_diagnoser_end_source(d);
  }
  const char *out = nullptr;
  // Evidence was lost: no diagnosis of the rest may pass for the whole.
  if (st == FL_E_NOMEM && d && fl_diagnoser_report(d, FL_REPORT_JSON, &out, nullptr) != FL_E_NOMEM) st = FL_E_INVALID_ARG;
  for (int format : {FL_REPORT_JSON, FL_REPORT_TEXT, FL_REPORT_TEXT_COLOR, FL_REPORT_SUMMARY})
    if (st == FL_OK) st = fl_diagnoser_report(d, format, &out, nullptr);
  fl_diagnosis result;
  result.struct_size = sizeof result;
  if (st == FL_OK) st = fl_diagnoser_result(d, &result);
  const void *part = nullptr;
  size_t part_len = 0;
  if (st == FL_OK) st = fl_diagnoser_partial(d, &part, &part_len);
  if (st == FL_OK) st = fl_diagnoser_create(c->pack, &o, &merged);
  if (st == FL_OK) st = fl_diagnoser_merge_partial(merged, part, part_len);
  if (st == FL_OK) st = fl_diagnoser_report(merged, FL_REPORT_JSON, &out, nullptr);
  fl_diagnoser_free(merged);
  fl_diagnoser_free(d);
  return st;
}

std::vector<Job> jobs() {
  std::vector<Job> out;
  Job eval;  // single-rank logs from issue threads
  for (const char *name : {"A009.log", "A052.log", "B043.log", "B063.log"})
    eval.push_back({name, slurp(fs::path(FAULTLINE_TEST_DATA) / "logs" / name)});
  out.push_back(eval);
  // Multi-rank, multi-host jobs: lagging ranks, SIGKILLs, unknown failures.
  fs::path multirank = fs::path(FAULTLINE_TEST_DATA) / ".." / "golden" / "multirank";
  std::vector<fs::path> cases;
  for (const auto &e : fs::directory_iterator(multirank))
    if (e.is_directory()) cases.push_back(e.path());
  std::sort(cases.begin(), cases.end());
  for (const auto &dir : cases) {
    std::vector<fs::path> files;
    for (const auto &e : fs::recursive_directory_iterator(dir))
      if (e.is_regular_file() && e.path().extension() == ".log") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    Job job;
    for (const auto &f : files) job.push_back({fs::relative(f, dir).string(), slurp(f)});
    if (!job.empty()) out.push_back(job);
  }
  return out;
}

// The lines of libcore that call the allocator directly ("file.cpp:123").
// Allocations through a growable array name the array's caller instead, so
// the array's own call (growbuf.h) is not a site, nor is the allocator's.
std::set<Site> direct_sites_in_source() {
  std::set<Site> sites;
  fs::path dir = fs::path(FAULTLINE_SOURCE_DIR) / "libcore";
  for (const auto &e : fs::recursive_directory_iterator(dir)) {
    std::string name = e.path().filename().string();
    if (name == "alloc.h" || name == "alloc.cpp" || name == "growbuf.h") continue;
    if (e.path().extension() != ".cpp" && e.path().extension() != ".h") continue;
    std::ifstream in(e.path());
    std::string line;
    for (unsigned n = 1; std::getline(in, line); n++) {
      std::string code = line.substr(0, line.find("//"));
      if (code.find(".allocate(") != std::string::npos || code.find(".allocate_zeroed(") != std::string::npos)
        sites.insert(name + ":" + std::to_string(n));
    }
  }
  return sites;
}

}  // namespace

TEST_CASE("allocation failures: every site on pack open, scanner creation and diagnosis is failed and counted") {
  std::set<Site> failed;
  auto add = [&](const std::set<Site> &s) { failed.insert(s.begin(), s.end()); };
  add(fail_every_allocation(open_default, nullptr));
  add(fail_every_allocation(open_file, nullptr));
  add(fail_every_allocation(open_and_scan, nullptr));
  add(fail_every_allocation(stack_and_scan, nullptr));
  {
    const fs::path dir = fs::temp_directory_path() / ("fl-alloc-test-" + std::to_string(getpid()));
    fs::create_directories(dir);
    const fs::path signed_pack = dir / "small.flpack";
    fs::copy_file(FAULTLINE_SMALL_PACK, signed_pack, fs::copy_options::overwrite_existing);
    std::ofstream(dir / "small.flpack.sig", std::ios::binary) << std::string(80, 's');
    add(fail_every_allocation(open_signed_file, &signed_pack));
    fs::remove_all(dir);
  }

  fl_pack *pack = nullptr;
  REQUIRE(fl_pack_open_default(nullptr, &pack, nullptr, 0) == FL_OK);
  for (const Job &job : jobs()) {
    DiagnosisCtx ctx{pack, job};
    INFO("job of " << job.size() << " sources, first " << job[0].first);
    add(fail_every_allocation(diagnose, &ctx));
  }
  fl_pack_free(pack);

  std::set<Site> direct = direct_sites_in_source();
  for (const Site &s : direct) {
    INFO("allocation site " << s << " was never reached, so never failed");
    CHECK(failed.count(s) == 1);
  }
  MESSAGE(failed.size() << " distinct allocation sites failed (" << direct.size()
                        << " direct allocator calls in libcore among them)");
  CHECK(direct.size() >= 10);  // the scan found the source
  CHECK(failed.size() >= direct.size());
}
