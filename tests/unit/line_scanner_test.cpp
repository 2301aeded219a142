// The line engine (match/line_scanner.h) on a pack built here: how stacked
// log prefixes combine into one frame (a value later in the line wins its
// field), whatever the chunking.
#include "match/line_scanner.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "fixtures.h"

namespace {

faultline::Framing framing(const std::string &id, const std::string &regex) {
  faultline::Framing f;
  f.file = f.rel_path = "framing/" + id + ".yaml";
  f.id = id;
  f.title = f.description = "test framing " + id;
  faultline::Signature tmp = fixtures::signature(id, {regex});
  f.patterns = std::move(tmp.patterns);
  return f;
}

// Three launchers' prefixes, as they stack: srun --label, torchrun's
// [rankN]:, NCCL's host:pid:tid [device].
fixtures::Pack stacked_prefix_pack() {
  std::vector<faultline::Framing> framings;  // not copyable: no initializer list
  framings.push_back(framing("srun", "^(?<rank>\\d+): "));
  framings.push_back(framing("torch", "\\[rank(?<rank>\\d+)\\]: "));
  framings.push_back(framing("nccl", "(?<host>[a-z][a-z0-9-]*):(?<pid>\\d+):\\d+ \\[(?<device>\\d+)\\] NCCL"));
  std::vector<faultline::Signature> entries;
  entries.push_back(fixtures::signature("nccl-boom", {"NCCL WARN boom"}));
  fixtures::Pack p;
  fixtures::copy_bytes(&p, faultline::build_pack(entries, fixtures::build_options(), framings).bytes);
  REQUIRE(fixtures::open(&p) == faultline::Status::kOk);
  return p;
}

struct Seen {
  int64_t rank, local_rank, pid, device;
  std::string host;
  uint64_t line;
};

int keep(void *ctx, const fl_event *ev) {
  static_cast<std::vector<Seen> *>(ctx)->push_back(
      Seen{ev->rank, ev->local_rank, ev->pid, ev->device, std::string(ev->host ? ev->host : "", ev->host_len), ev->line_number});
  return 0;
}

// Scans `text` in chunks of `chunk` bytes.
std::vector<Seen> scan(const fixtures::Pack &p, const std::string &text, size_t chunk) {
  faultline::LineScanner s;
  REQUIRE(s.create(&p.view, 0, faultline::Allocator{}) == faultline::Status::kOk);
  std::vector<Seen> seen;
  for (size_t at = 0; at < text.size(); at += chunk) {
    const size_t n = std::min(chunk, text.size() - at);
    CHECK_FALSE(s.feed(reinterpret_cast<const uint8_t *>(text.data()) + at, n, keep, &seen));
  }
  CHECK_FALSE(s.finish(keep, &seen));
  return seen;
}

}  // namespace

TEST_CASE("line scanner: stacked prefixes, the later value wins its field") {
  fixtures::Pack p = stacked_prefix_pack();
  const std::string text =
      "3: [rank5]: node-b:11:12 [1] NCCL WARN boom\n"  // srun says 3 (a node index), torchrun says 5
      "3: node-b:11:12 [1] NCCL WARN boom\n"           // only srun's rank
      "node-b:11:12 [1] NCCL WARN boom\n"              // no rank: device and pid only
      "[rank7]: plain line\n";                         // no event: no entry matches
  for (size_t chunk : {text.size(), size_t{1}, size_t{7}}) {
    CAPTURE(chunk);
    std::vector<Seen> seen = scan(p, text, chunk);
    REQUIRE(seen.size() == 3);
    CHECK(seen[0].rank == 5);
    CHECK(seen[0].host == "node-b");
    CHECK(seen[0].pid == 11);
    CHECK(seen[0].device == 1);
    CHECK(seen[0].line == 1);
    CHECK(seen[1].rank == 3);
    CHECK(seen[2].rank == -1);
    CHECK(seen[2].device == 1);
    CHECK(seen[2].line == 3);
    CHECK(seen[2].local_rank == -1);
  }
}

TEST_CASE("line scanner: a frame does not leak into the next line") {
  fixtures::Pack p = stacked_prefix_pack();
  std::vector<Seen> seen = scan(p, "[rank2]: node-a:1:2 [0] NCCL WARN boom\r NCCL WARN boom\n", 5);
  REQUIRE(seen.size() == 2);  // a bare '\r' ends a line
  CHECK(seen[0].rank == 2);
  CHECK(seen[0].host == "node-a");
  CHECK(seen[1].rank == -1);
  CHECK(seen[1].host.empty());
  CHECK(seen[1].line == 2);
}
