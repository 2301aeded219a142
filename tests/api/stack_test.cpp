// Pack stacks through faultline.h: a site's pack (docs/site-library-example,
// compiled by flc against the embedded pack) over ours adds an entry,
// replaces one and turns one off; reports say where each entry came from.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "faultline.h"
#include "test_files.h"

namespace {

struct Packs {
  fl_pack *ours = nullptr, *site = nullptr, *stack = nullptr;
  Packs() {
    char err[256];
    REQUIRE(fl_pack_open_default(nullptr, &ours, err, sizeof err) == FL_OK);
    REQUIRE_MESSAGE(fl_pack_open_file(FAULTLINE_SITE_PACK, nullptr, &site, err, sizeof err) == FL_OK, err);
    const fl_pack *both[] = {ours, site};
    REQUIRE_MESSAGE(fl_pack_stack(both, 2, nullptr, &stack, err, sizeof err) == FL_OK, err);
  }
  ~Packs() {
    fl_pack_free(stack);
    fl_pack_free(site);
    fl_pack_free(ours);
  }
};

std::vector<std::string> ids(const fl_pack *p) {
  std::vector<std::string> out;
  for (uint32_t i = 0; i < fl_pack_entry_count(p); i++) out.push_back(fl_pack_entry_id(p, i));
  return out;
}

struct Event {
  std::string id, origin;
  uint64_t line;
};

// Every event of scanning `text` with `pack`, checking that indices are the pack's.
std::vector<Event> scan(const fl_pack *pack, const std::string &text) {
  struct Ctx {
    const fl_pack *pack;
    std::vector<Event> events;
  } ctx{pack, {}};
  fl_scanner *sc = nullptr;
  REQUIRE(fl_scanner_create(pack, nullptr, &sc) == FL_OK);
  auto on = [](void *c, const fl_event *ev) {
    auto *x = static_cast<Ctx *>(c);
    CHECK(std::string(fl_pack_entry_id(x->pack, ev->entry)) == ev->entry_id);
    x->events.push_back(Event{ev->entry_id, fl_pack_entry_origin(x->pack, ev->entry), ev->line_number});
    return 0;
  };
  REQUIRE(fl_scanner_feed(sc, text.data(), text.size(), on, &ctx) == FL_OK);
  REQUIRE(fl_scanner_finish(sc, on, &ctx) == FL_OK);
  fl_scanner_free(sc);
  return ctx.events;
}

bool has(const std::vector<Event> &evs, const std::string &id) {
  for (const auto &e : evs)
    if (e.id == id) return true;
  return false;
}

const char *kSiteLog = FAULTLINE_TEST_DATA "/site/prolog-nhc.log";

}  // namespace

TEST_CASE("stack: a site pack adds, replaces and turns off entries of ours") {
  Packs p;
  CHECK(fl_pack_layer_count(p.stack) == 2);
  CHECK(fl_pack_layer(p.stack, 0) == p.ours);
  CHECK(fl_pack_layer(p.stack, 1) == p.site);
  CHECK(fl_pack_layer(p.stack, 2) == nullptr);
  CHECK(std::string(fl_pack_library_name(p.ours)) == "faultline");
  CHECK(std::string(fl_pack_library_name(p.site)) == "example-site");
  CHECK(std::string(fl_pack_base_name(p.site)) == "faultline");
  CHECK(std::string(fl_pack_base_name(p.ours)).empty());

  // The stack's entries: ours and the site's by id, less the one it turns off.
  std::set<std::string> expected;
  for (const auto &id : ids(p.ours)) expected.insert(id);
  for (const auto &id : ids(p.site)) expected.insert(id);
  expected.erase("host-cpu-thermal-throttle");
  const std::vector<std::string> got = ids(p.stack);
  CHECK(std::set<std::string>(got.begin(), got.end()) == expected);
  CHECK(got.size() == expected.size());
  CHECK(std::is_sorted(got.begin(), got.end()));

  const uint32_t added = fl_pack_find_entry(p.stack, "site-nhc-health-check-failed");
  const uint32_t replaced = fl_pack_find_entry(p.stack, "slurm-prolog-failed");
  const uint32_t kept = fl_pack_find_entry(p.stack, "nccl-watchdog-timeout");
  REQUIRE(added != UINT32_MAX);
  REQUIRE(replaced != UINT32_MAX);
  REQUIRE(kept != UINT32_MAX);
  CHECK(fl_pack_find_entry(p.stack, "host-cpu-thermal-throttle") == UINT32_MAX);
  CHECK(std::string(fl_pack_entry_origin(p.stack, added)) == "example-site");
  CHECK(std::string(fl_pack_entry_origin(p.stack, replaced)) == "example-site");
  CHECK(std::string(fl_pack_entry_origin(p.stack, kept)) == "faultline");
  CHECK(fl_pack_entry_replaces(p.stack, replaced) == 1);
  CHECK(fl_pack_entry_replaces(p.stack, added) == 0);
  CHECK(std::string(fl_pack_entry_title(p.stack, replaced)) !=
        fl_pack_entry_title(p.ours, fl_pack_find_entry(p.ours, "slurm-prolog-failed")));

  // The page of the site's entry links to ours by id, resolved in the stack.
  std::vector<char> page(fl_pack_entry_page(p.stack, added, FL_PAGE_TEXT, nullptr, 0) + 1);
  fl_pack_entry_page(p.stack, added, FL_PAGE_TEXT, page.data(), page.size());
  CHECK(std::strstr(page.data(), "From the pack example-site") != nullptr);
  CHECK(std::strstr(page.data(), "Often followed by") != nullptr);
}

TEST_CASE("stack: the turned-off entry reports nothing, the replacement reports for the site") {
  Packs p;
  const std::string log = slurp(kSiteLog);
  const std::vector<Event> ours = scan(p.ours, log);
  CHECK(has(ours, "host-cpu-thermal-throttle"));  // the line is there: ours alone reads it
  CHECK(!has(ours, "site-nhc-health-check-failed"));
  const std::vector<Event> stacked = scan(p.stack, log);
  CHECK(!has(stacked, "host-cpu-thermal-throttle"));
  CHECK(has(stacked, "site-nhc-health-check-failed"));
  for (const auto &e : stacked)
    if (e.id == "slurm-prolog-failed") CHECK(e.origin == "example-site");
  // Events come in line order across the packs.
  for (size_t i = 1; i < stacked.size(); i++) CHECK(stacked[i - 1].line <= stacked[i].line);
}

TEST_CASE("stack: the site's prefix format frames our entries' lines") {
  Packs p;
  // Our OOM entry on a line behind the site's wrapper prefix: ours alone
  // cannot say which rank, the stack reads the site's format.
  const std::string line = "[gpu-node-07 r3] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n";
  struct Frame {
    std::string id, host;
    int64_t rank = -2;
  };
  auto frame_of = [&](const fl_pack *pack) {
    Frame f;
    fl_scanner *sc = nullptr;
    REQUIRE(fl_scanner_create(pack, nullptr, &sc) == FL_OK);
    auto on = [](void *c, const fl_event *ev) {
      auto *x = static_cast<Frame *>(c);
      x->id = ev->entry_id;
      x->rank = ev->rank;
      x->host = ev->host ? std::string(ev->host, ev->host_len) : "";
      return 0;
    };
    REQUIRE(fl_scanner_feed(sc, line.data(), line.size(), on, &f) == FL_OK);
    fl_scanner_free(sc);
    return f;
  };
  const Frame ours = frame_of(p.ours), stacked = frame_of(p.stack);
  REQUIRE(!ours.id.empty());
  CHECK(ours.id == stacked.id);  // the same entry of ours
  CHECK(ours.rank == -1);
  CHECK(ours.host.empty());
  CHECK(stacked.rank == 3);
  CHECK(stacked.host == "gpu-node-07");
}

TEST_CASE("stack: the diagnosis names the site's cause, with provenance in the JSON report") {
  Packs p;
  const std::string log = slurp(kSiteLog);
  fl_diagnoser *d = nullptr;
  REQUIRE(fl_diagnoser_create(p.stack, nullptr, &d) == FL_OK);
  REQUIRE(fl_diagnoser_begin_source(d, "slurmd.log") == FL_OK);
  REQUIRE(fl_diagnoser_feed(d, log.data(), log.size()) == FL_OK);
  REQUIRE(fl_diagnoser_end_source(d) == FL_OK);
  const char *json = nullptr;
  size_t len = 0;
  REQUIRE(fl_diagnoser_report(d, FL_REPORT_JSON, &json, &len) == FL_OK);
  const std::string r(json, len);
  // The node failed its health check: that is the cause; Slurm's prolog
  // failure follows from it (the site's entry says so, by id of ours).
  const size_t root = r.find("\"root\": {");
  REQUIRE(root != std::string::npos);
  const std::string root_obj = r.substr(root, r.find('}', root) - root);
  CHECK(root_obj.find("\"id\": \"site-nhc-health-check-failed\"") != std::string::npos);
  CHECK(root_obj.find("\"pack\": \"example-site\"") != std::string::npos);
  const size_t prolog = r.find("\"id\": \"slurm-prolog-failed\"");
  REQUIRE(prolog != std::string::npos);
  CHECK(r.find("\"pack\": \"example-site\"", prolog) < r.find('}', prolog));
  CHECK(r.find("host-cpu-thermal-throttle") == std::string::npos);
  CHECK(r.find("\"name\": \"faultline\"") != std::string::npos);
  CHECK(r.find("\"name\": \"example-site\"") != std::string::npos);
  fl_diagnoser_free(d);
}

TEST_CASE("stack: arguments, order and lifetimes") {
  Packs p;
  char err[256];
  fl_pack *s = nullptr;
  const fl_pack *site_alone[] = {p.site};
  CHECK(fl_pack_stack(site_alone, 1, nullptr, &s, err, sizeof err) == FL_E_INVALID_ARG);  // its base is not below it
  CHECK(s == nullptr);
  CHECK(std::strstr(err, "stands over") != nullptr);
  const fl_pack *upside_down[] = {p.site, p.ours};
  CHECK(fl_pack_stack(upside_down, 2, nullptr, &s, err, sizeof err) == FL_E_INVALID_ARG);
  CHECK(fl_pack_stack(nullptr, 1, nullptr, &s, err, sizeof err) == FL_E_INVALID_ARG);
  const fl_pack *one[] = {p.ours};
  CHECK(fl_pack_stack(one, 0, nullptr, &s, err, sizeof err) == FL_E_INVALID_ARG);
  const fl_pack *with_null[] = {p.ours, nullptr};
  CHECK(fl_pack_stack(with_null, 2, nullptr, &s, err, sizeof err) == FL_E_INVALID_ARG);
  std::vector<const fl_pack *> many(17, p.ours);
  CHECK(fl_pack_stack(many.data(), many.size(), nullptr, &s, err, sizeof err) == FL_E_INVALID_ARG);

  // A stack of a stack is flattened; the packs may be freed before the stack.
  fl_pack *ours = nullptr, *site = nullptr, *inner = nullptr, *outer = nullptr;
  REQUIRE(fl_pack_open_default(nullptr, &ours, err, sizeof err) == FL_OK);
  REQUIRE(fl_pack_open_file(FAULTLINE_SITE_PACK, nullptr, &site, err, sizeof err) == FL_OK);
  const fl_pack *both[] = {ours, site};
  REQUIRE(fl_pack_stack(both, 2, nullptr, &inner, err, sizeof err) == FL_OK);
  const fl_pack *again[] = {inner};
  REQUIRE(fl_pack_stack(again, 1, nullptr, &outer, err, sizeof err) == FL_OK);
  CHECK(fl_pack_layer_count(outer) == 2);
  fl_pack_free(ours);
  fl_pack_free(site);
  fl_pack_free(inner);
  CHECK(ids(outer) == ids(p.stack));
  CHECK(has(scan(outer, slurp(kSiteLog)), "site-nhc-health-check-failed"));
  fl_pack_free(outer);
}

TEST_CASE("stack: four threads scan with one stack and agree with one thread") {
  Packs p;
  const std::string log = slurp(kSiteLog) + slurp(FAULTLINE_TEST_DATA "/logs/A052.log");
  const size_t expected = scan(p.stack, log).size();
  REQUIRE(expected > 0);
  std::vector<size_t> counts(4, 0);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < counts.size(); t++)
    threads.emplace_back([&, t] {
      fl_scanner *sc = nullptr;
      if (fl_scanner_create(p.stack, nullptr, &sc) != FL_OK) return;
      auto on = [](void *c, const fl_event *) {
        ++*static_cast<size_t *>(c);
        return 0;
      };
      for (size_t at = 0; at < log.size(); at += 4096)
        fl_scanner_feed(sc, log.data() + at, std::min<size_t>(4096, log.size() - at), on, &counts[t]);
      fl_scanner_finish(sc, on, &counts[t]);
      fl_scanner_free(sc);
    });
  for (auto &th : threads) th.join();
  for (size_t c : counts) CHECK(c == expected);
}
