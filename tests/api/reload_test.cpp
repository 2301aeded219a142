// Hot reload through faultline.h: a pack slot swapped under threads that
// take the current pack for each scan. Every scan must see one whole pack,
// the old or the new, never a mix or freed memory (ASan, TSan: the test case
// names have "threads", so .ci/run runs them under ThreadSanitizer).
#include <doctest/doctest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "faultline.h"
#include "test_files.h"

namespace {

// Events of scanning `text` with `pack`, and whether the site's entry was among them.
struct Count {
  size_t events = 0;
  bool site_entry = false;
};

Count scan(const fl_pack *pack, const std::string &text) {
  Count c;
  fl_scanner *sc = nullptr;
  if (fl_scanner_create(pack, nullptr, &sc) != FL_OK) return c;
  auto on = [](void *ctx, const fl_event *ev) {
    auto *x = static_cast<Count *>(ctx);
    x->events++;
    x->site_entry = x->site_entry || std::string(ev->entry_id) == "site-nhc-health-check-failed";
    return 0;
  };
  for (size_t at = 0; at < text.size(); at += 1000)
    fl_scanner_feed(sc, text.data() + at, std::min<size_t>(1000, text.size() - at), on, &c);
  fl_scanner_finish(sc, on, &c);
  fl_scanner_free(sc);
  return c;
}

}  // namespace

TEST_CASE("reload: a slot hands out its pack and takes a new one") {
  fl_pack *a = nullptr, *b = nullptr;
  fl_pack_slot *slot = nullptr;
  CHECK(fl_pack_slot_create(nullptr, nullptr, &slot) == FL_E_INVALID_ARG);
  CHECK(slot == nullptr);
  REQUIRE(fl_pack_open_default(nullptr, &a, nullptr, 0) == FL_OK);
  REQUIRE(fl_pack_open_file(FAULTLINE_SMALL_PACK, nullptr, &b, nullptr, 0) == FL_OK);
  REQUIRE(fl_pack_slot_create(a, nullptr, &slot) == FL_OK);
  fl_pack_free(a);  // the slot keeps it
  fl_pack *got = fl_pack_slot_get(slot);
  CHECK(fl_pack_entry_count(got) > fl_pack_entry_count(b));
  CHECK(fl_pack_slot_set(slot, b) == FL_OK);
  CHECK(fl_pack_slot_set(nullptr, b) == FL_E_INVALID_ARG);
  CHECK(fl_pack_slot_set(slot, nullptr) == FL_E_INVALID_ARG);
  fl_pack_free(b);
  fl_pack *now = fl_pack_slot_get(slot);
  CHECK(fl_pack_entry_count(now) < fl_pack_entry_count(got));  // the new one
  // The old pack is still whole for whoever took it before the swap.
  CHECK(fl_pack_find_entry(got, "nccl-watchdog-timeout") != UINT32_MAX);
  fl_pack_free(got);
  fl_pack_free(now);
  fl_pack_slot_free(slot);
  fl_pack_slot_free(nullptr);
  CHECK(fl_pack_slot_get(nullptr) == nullptr);
}

TEST_CASE("reload: four threads scan while a fifth swaps packs (threads)") {
  fl_pack *ours = nullptr, *site = nullptr, *stack = nullptr;
  REQUIRE(fl_pack_open_default(nullptr, &ours, nullptr, 0) == FL_OK);
  REQUIRE(fl_pack_open_file(FAULTLINE_SITE_PACK, nullptr, &site, nullptr, 0) == FL_OK);
  const fl_pack *both[] = {ours, site};
  REQUIRE(fl_pack_stack(both, 2, nullptr, &stack, nullptr, 0) == FL_OK);
  fl_pack_free(site);
  const std::string log = slurp(FAULTLINE_TEST_DATA "/site/prolog-nhc.log") + slurp(FAULTLINE_TEST_DATA "/logs/A052.log");
  const Count with_ours = scan(ours, log), with_stack = scan(stack, log);
  REQUIRE(!with_ours.site_entry);
  REQUIRE(with_stack.site_entry);

  fl_pack_slot *slot = nullptr;
  REQUIRE(fl_pack_slot_create(ours, nullptr, &slot) == FL_OK);
  std::atomic<bool> done{false};
  std::atomic<int> mixed{0}, seen_ours{0}, seen_stack{0};
  std::vector<std::thread> scanners;
  for (int t = 0; t < 4; t++)
    scanners.emplace_back([&] {
      for (int i = 0; i < 40; i++) {
        fl_pack *p = fl_pack_slot_get(slot);
        const Count c = scan(p, log);
        fl_pack_free(p);
        // One whole pack each time: exactly the counts of one of the two.
        if (c.events == with_ours.events && c.site_entry == with_ours.site_entry)
          seen_ours++;
        else if (c.events == with_stack.events && c.site_entry == with_stack.site_entry)
          seen_stack++;
        else
          mixed++;
      }
    });
  std::thread swapper([&] {
    for (int i = 0; !done.load(); i++) {
      fl_pack_slot_set(slot, i % 2 ? ours : stack);
      std::this_thread::yield();
    }
  });
  for (auto &t : scanners) t.join();
  done = true;
  swapper.join();
  CHECK(mixed.load() == 0);
  CHECK(seen_ours.load() + seen_stack.load() == 160);
  // The slot's last pack and ours/stack are released in any order.
  fl_pack_free(ours);
  fl_pack_free(stack);
  fl_pack_slot_free(slot);
}
