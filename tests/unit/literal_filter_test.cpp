// The literal filter: flc's required literals, and the runtime's search for
// them, which must never miss a key (a miss loses a match silently).
#include "match/literal_filter.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "fixtures.h"
#include "literal_filter_build.h"

using namespace faultline;

namespace {

std::vector<Literal> keys_of(const std::string &pattern) {
  regex::Regex re = regex::parse(pattern);
  auto set = required_literals(re, 4, 5);
  return set ? *set : std::vector<Literal>{};
}

bool contains_key(const std::string &line, const Literal &k) {
  std::string l = line;
  if (k.caseless) std::transform(l.begin(), l.end(), l.begin(), [](char c) { return static_cast<char>(literal_lower(c)); });
  return l.find(k.bytes) != std::string::npos;
}

}  // namespace

TEST_CASE("literals: a plain message is its own key") {
  auto keys = keys_of("CUDA out of memory\\. Tried to allocate");
  REQUIRE(keys.size() == 1);
  CHECK(keys[0].bytes == "CUDA out of memory. Tried to allocate");
  CHECK_FALSE(keys[0].caseless);
}

TEST_CASE("literals: alternatives give one key each, extended by their neighbours") {
  auto keys = keys_of("(?:Error|Exception): (?<message>.*)");
  std::vector<std::string> got;
  for (const auto &k : keys) got.push_back(k.bytes);
  std::sort(got.begin(), got.end());
  CHECK(got == std::vector<std::string>{"Error: ", "Exception: "});
  // A prefix of the next item joins the run: "to 0." is required, "to " alone is common.
  keys = keys_of("reducing loss scale to (?:[12]\\.0|0\\.\\d*[1-9])");
  for (const auto &k : keys) CHECK(k.bytes.find("to ") != std::string::npos);
  CHECK(std::none_of(keys.begin(), keys.end(), [](const Literal &k) { return k.bytes == "reducing loss scale to "; }));
}

TEST_CASE("literals: case-insensitive patterns give caseless keys; no literal, no key") {
  auto keys = keys_of("(?i)nccl warn");
  REQUIRE(keys.size() == 1);
  CHECK(keys[0].caseless);
  CHECK(keys[0].bytes == "nccl warn");
  CHECK(keys_of("\\d+").empty());
  CHECK(keys_of("x\\d+y").empty());
  CHECK(keys_of("(?:abc)?def").empty());
}

TEST_CASE("literals: every line a pattern matches holds one of its keys") {
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"rank (?<rank>\\d+) nranks (?<n>\\d+)", {"comm 0x1 rank 3 nranks 8 cudaDev 3", "rank 0 nranks 1"}},
      {"(?i)(?:loss|perplexity)\\s?[:=] ?(?:nan|[-+]?inf)\\b", {"step 5 loss: nan", "LOSS=INF", "perplexity = -inf"}},
      {"Xid \\(PCI:[0-9a-fA-F:.]+\\): (?:48|63|64|79)\\b", {"NVRM: Xid (PCI:0000:3b:00): 79, pid=1", "Xid (PCI:1): 48"}},
      {"(?:Killed|Aborted) +\\(core dumped\\)", {"Aborted (core dumped)", "x Killed   (core dumped)"}},
  };
  for (const auto &c : cases) {
    const std::string &pattern = c.first;  // not a structured binding: INFO captures it
    const auto &lines = c.second;
    auto keys = keys_of(pattern);
    REQUIRE_FALSE(keys.empty());
    for (const auto &line : lines) {
      INFO(pattern << " on " << line);
      CHECK(std::any_of(keys.begin(), keys.end(), [&](const Literal &k) { return contains_key(line, k); }));
    }
  }
}

TEST_CASE("literals: an alternation whose kids' cheapest sets are too many together takes their smallest sets") {
  // The first kid's cheapest set is its nine rare endings (its two starts are
  // common English); with the second kid's eight strings that makes 17, more
  // than a key set holds. Its two starts fit: the pattern keeps a key set.
  const std::string pattern = "(?:tion|ing )(?:Zqxa|Zqxb|Zqxc|Zqxd|Zqxe|Zqxf|Zqxg|Zqxh|Zqxi)|Wvyk(?:a1|a2|a3|a4|a5|a6|a7|a8)";
  auto keys = keys_of(pattern);
  REQUIRE_FALSE(keys.empty());
  for (const std::string line : {"the ing Zqxe here", "nation tionZqxi", "x Wvyka7 y"}) {
    INFO(line);
    CHECK(std::any_of(keys.begin(), keys.end(), [&](const Literal &k) { return contains_key(line, k); }));
  }
}

// Random text with the pack's keys planted (in random case where caseless,
// and as near misses): the filter must report exactly the occurrences a
// brute-force search finds, at every stride.
TEST_CASE("literal filter: finds every key occurrence at every stride") {
  const std::vector<std::string> patterns = {"CUDA out of memory", "(?i)nccl warn", "NCCL INFO Bootstrap : Using",
                                             "Error: ", "(?:Killed|Aborted)\\b", "watchdog caught collective operation timeout",
                                             "Xid \\(PCI:", "rank \\d+ nranks", "OOMKilled", "(?i)segmentation fault",
                                             // UTF-8 keys: short ones (at the larger strides) with bytes >= 0x80
                                             // take the short-key kernels' non-ASCII path
                                             "\xe5\xb7\xb2\xe6\x9d\x80\xe6\xad\xbb", "Get\xc3\xb6tet"};
  // Filler: ASCII and the bytes of UTF-8 text, whose high bits the ASCII path must not read as a key's.
  static const char kFiller[] = " abcdefghijklmnopqrstuvwxyzABCDEF:()0123456789\xc3\xb6\xe5\xb7\xb2\xe6\x9d\x80\xba\xff\x8a";
  std::mt19937 rng(12345);
  for (uint32_t stride = 1; stride <= kLiteralMaxStride; stride++) {
    CAPTURE(stride);
    BuildOptions opt = fixtures::build_options();
    opt.literal_stride = stride;
    std::vector<Signature> sigs;
    sigs.push_back(fixtures::signature("planted", patterns));
    fixtures::Pack pack = fixtures::build(sigs, opt);
    REQUIRE(fixtures::open(&pack) == Status::kOk);
    const LiteralFilterView &f = pack.view.literals;
    REQUIRE(f.usable);
    REQUIRE(f.stride == stride);
    std::vector<const fb::LiteralKey *> keys;
    for (const LiteralKeys *list : {f.long_keys, f.short_keys})
      for (uint32_t i = 0; list && i < list->size(); i++) keys.push_back(list->Get(i));
    REQUIRE(keys.size() >= patterns.size());
    if (f.short_keys) CHECK(f.short_ascii == (stride < 6));  // "Getötet" (8 bytes) is short from stride 6 on
    for (int round = 0; round < 200; round++) {
      std::string text;
      const size_t target = 1 + rng() % 600;
      while (text.size() < target) {
        const uint32_t r = rng() % 10;
        if (r < 3) {
          const fb::LiteralKey *k = keys[rng() % keys.size()];
          std::string s(reinterpret_cast<const char *>(k->text()->data()), k->text()->size());
          if (k->caseless())
            for (auto &c : s)
              if (c >= 'a' && c <= 'z' && rng() % 2) c = static_cast<char>(c - 32);
          if (r == 2) s[rng() % s.size()] ^= 0x01;  // a near miss (or, rarely, another key)
          text += s;
        } else {
          text += kFiller[rng() % (sizeof kFiller - 1)];
        }
      }
      std::map<const fb::LiteralKey *, int> expected, got;
      for (const fb::LiteralKey *k : keys) {
        const std::string key(reinterpret_cast<const char *>(k->text()->data()), k->text()->size());
        for (size_t at = 0; at + key.size() <= text.size(); at++) {
          bool eq = true;
          for (size_t i = 0; i < key.size() && eq; i++) {
            const uint8_t c = static_cast<uint8_t>(text[at + i]);
            eq = (k->caseless() ? literal_lower(c) : c) == static_cast<uint8_t>(key[i]);
          }
          if (eq) expected[k]++;
        }
      }
      const uint8_t *b = reinterpret_cast<const uint8_t *>(text.data()), *e = b + text.size();
      literal_each_key(
          f, b, e, [](void *ctx, const fb::LiteralKey *k) { (*static_cast<std::map<const fb::LiteralKey *, int> *>(ctx))[k]++; },
          &got);
      INFO("text: " << text);
      CHECK(got == expected);
      // The first-hit searches agree with it: a hit iff some key occurs.
      const bool any = !expected.empty();
      CHECK((literal_find_long(f, b, e) || literal_find_short(f, b, e)) == any);
    }
  }
}
