// The matcher's work budget (limits.h, LineMatcher::use_work_budget): lines
// packed with keys spend at most the units the stream earned plus the reserve,
// matching stops early on them (counted), and the bucket refills with plain
// bytes, after which lines match in full again.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "fixtures.h"
#include "match/line_matcher.h"

namespace {

// Patterns whose confirmation reads the whole line: a key, anything, another
// key and a capture, as many real entries are written.
fixtures::Pack dense_pack() {
  std::vector<faultline::Signature> sigs;
  const char *words[] = {"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"};
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 8; j++)
      if (i != j)
        sigs.push_back(fixtures::signature("e" + std::to_string(i) + std::to_string(j),
                                           {std::string(words[i]) + "Error.*" + words[j] + "Failure: (?<code>\\d+)"}));
  fixtures::Pack p = fixtures::build(sigs);
  REQUIRE(fixtures::open(&p) == faultline::Status::kOk);
  return p;
}

// One line of `bytes` holding every key many times over.
std::string dense_line(size_t bytes) {
  const char *words[] = {"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"};
  std::string line;
  for (size_t k = 0; line.size() < bytes; k++) line += std::string(words[k % 8]) + "Error " + words[k % 8] + "Failure: 42 ";
  line.resize(bytes);
  return line;
}

uint32_t match(faultline::LineMatcher &m, const std::string &line) {
  return m.match_line(
      reinterpret_cast<const uint8_t *>(line.data()), line.size(), [](void *, uint32_t, const int32_t *) {}, nullptr);
}

}  // namespace

TEST_CASE("work budget: key-dense lines spend what the stream earned, no more, and are counted") {
  fixtures::Pack pack = dense_pack();
  const std::string line = dense_line(2048);

  faultline::LineMatcher free_matcher;  // no budget: every pattern confirmed
  REQUIRE(free_matcher.create(&pack.view) == faultline::Status::kOk);
  const uint32_t all = match(free_matcher, line);
  REQUIRE(all == 56);  // every ordered pair of distinct words occurs in that order
  CHECK(free_matcher.over_budget_lines() == 0);

  constexpr int64_t kPerByte = 5, kReserve = 16 << 20;
  faultline::LineMatcher m;
  REQUIRE(m.create(&pack.view) == faultline::Status::kOk);
  m.use_work_budget(kPerByte, kReserve);
  int64_t bytes = 0;
  uint32_t first = 0, last = 0;
  for (int i = 0; i < 200; i++) {
    m.earn(line.size() + 1);
    bytes += static_cast<int64_t>(line.size()) + 1;
    last = match(m, line);
    if (i == 0) first = last;
  }
  CHECK(first == all);  // the reserve pays for the first lines in full
  CHECK(last < all);    // then the bucket is empty: matching stops early
  CHECK(m.over_budget_lines() > 0);
  CHECK(m.over_budget_lines() < 200);
  // The bound: what was earned plus the reserve, give or take the last step
  // of a run (a VM position, a line's keys) that overshoots it.
  CHECK(m.work_spent() <= kReserve + kPerByte * bytes + 64 * 1024);
  CHECK(m.work_spent() >= kPerByte * bytes / 2);  // and the budget was used, not wasted

  // Plain bytes refill the bucket: the next dense line matches in full.
  m.earn(static_cast<uint64_t>(kReserve / kPerByte) + 1);
  CHECK(match(m, line) == all);
}
