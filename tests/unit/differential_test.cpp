// Differential property test: random patterns of the dialect and random
// lines, compiled into real packs (Ragel DFAs + programs) and matched by the
// runtime's line matcher, against RE2 on the same bytes. Match/no-match, the
// whole-match span and every named capture must agree.
#include <doctest/doctest.h>
#include <re2/re2.h>

#include <map>
#include <random>

#include "fixtures.h"
#include "match/line_matcher.h"

namespace {

// Builds one random pattern twice: in our dialect and in RE2's syntax with
// the same meaning (RE2's \s lacks \v; named groups are spelled (?P<...>).
class PatternGen {
 public:
  explicit PatternGen(uint32_t seed) : rng_(seed) {}

  std::pair<std::string, std::string> pattern() {
    captures_ = 0;
    std::string ours, theirs;
    if (chance(10)) {
      ours += "(?i)";
      theirs += "(?i)";
    }
    auto [o, t] = sequence(0);
    return {ours + o, theirs + t};
  }

  std::string line() {
    static const char alphabet[] = "abcAB -1\t";
    std::string s;
    int n = pick(0, 40);
    for (int i = 0; i < n; i++) s += chance(2) ? '\xe9' : alphabet[pick(0, sizeof alphabet - 2)];
    return s;
  }

 private:
  std::mt19937 rng_;
  int captures_ = 0;

  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool chance(int percent) { return pick(0, 99) < percent; }

  using Pair = std::pair<std::string, std::string>;

  Pair sequence(int depth) {
    Pair out;
    int n = pick(1, depth == 0 ? 6 : 3);
    for (int i = 0; i < n; i++) {
      Pair p = quantified(depth);
      out.first += p.first;
      out.second += p.second;
    }
    return out;
  }

  Pair quantified(int depth) {
    Pair a = atom(depth);
    if (a.first == "^" || a.first == "$" || a.first == "\\b" || a.first == "\\B") return a;
    if (!chance(35)) return a;
    static const char *quants[] = {"*", "+", "?", "{2}", "{1,3}", "{0,2}", "{2,}"};
    std::string q = quants[pick(0, 6)];
    if (chance(25)) q += "?";
    return {a.first + q, a.second + q};
  }

  Pair atom(int depth) {
    int k = pick(0, 99);
    if (k < 45) {
      static const char lits[] = "abcAB-1 ";
      std::string c(1, lits[pick(0, sizeof lits - 2)]);
      return {c, c};
    }
    if (k < 52) return {".", "."};
    if (k < 62) {
      static const char *classes[] = {"[ab]", "[^a]", "[a-c1]", "[^ b]", "[A-Ca]", "\\d", "\\w", "\\W", "[\\d ]"};
      std::string c = classes[pick(0, 8)];
      return {c, c};
    }
    if (k < 66) return chance(50) ? Pair{"\\s", "[ \\t\\r\\f\\v]"} : Pair{"\\S", "[^ \\t\\r\\f\\v\\n]"};
    if (k < 70) {
      static const char *asserts[] = {"^", "$", "\\b", "\\B"};
      std::string a = asserts[pick(0, 3)];
      return {a, a};
    }
    if (depth >= 3) return {"a", "a"};
    Pair inner = sequence(depth + 1);
    if (chance(40)) {
      Pair alt = sequence(depth + 1);
      inner = {inner.first + "|" + alt.first, inner.second + "|" + alt.second};
    }
    if (chance(50)) {
      std::string name = "c" + std::to_string(++captures_);
      return {"(?<" + name + ">" + inner.first + ")", "(?P<" + name + ">" + inner.second + ")"};
    }
    return {"(?:" + inner.first + ")", "(?:" + inner.second + ")"};
  }
};

struct Hit {
  std::vector<int32_t> slots;  // empty: matched, no slots reported
};

struct Collector {
  std::map<uint32_t, Hit> hits;
  uint32_t slot_count_of_max = 0;
  const faultline::PackView *pack;
};

void collect(void *ctx, uint32_t pattern, const int32_t *slots) {
  auto *c = static_cast<Collector *>(ctx);
  Hit h;
  if (slots) h.slots.assign(slots, slots + c->pack->pattern(pattern)->slot_count());
  c->hits[pattern] = h;
}

void run_differential(uint32_t seed, int batches, int patterns_per_batch, int lines_per_batch,
                      const faultline::PieceOptions &opt) {
  PatternGen gen(seed);
  size_t compared = 0, matched = 0, captures_compared = 0, refused = 0;
  for (int b = 0; b < batches; b++) {
    std::vector<faultline::Signature> sigs;
    std::vector<std::unique_ptr<RE2>> refs;
    std::vector<std::string> texts;
    while (static_cast<int>(sigs.size()) < patterns_per_batch) {
      // Not a structured binding: clang 14 cannot capture one in doctest's lambdas.
      const auto generated = gen.pattern();
      const auto &ours = generated.first, &theirs = generated.second;
      faultline::Signature s;
      try {
        char id[16];
        std::snprintf(id, sizeof id, "e%04zu", sigs.size());  // ids sort in creation order
        s = fixtures::signature(id, {ours}, opt);
      } catch (const faultline::NoPieces &) {
        continue;  // nothing to look for: flc refuses such patterns
      }
      RE2::Options o;
      o.set_encoding(RE2::Options::EncodingLatin1);
      o.set_log_errors(false);
      auto re = std::make_unique<RE2>(theirs, o);
      REQUIRE_MESSAGE(re->ok(), "RE2 refused the translation of " << ours << ": " << re->error());
      sigs.push_back(std::move(s));
      refs.push_back(std::move(re));
      texts.push_back(ours);
    }
    faultline::BuildOptions bo = fixtures::build_options();
    // Random patterns over a tiny alphabet overlap far more than real
    // messages do; tighter limits make the builder partition early.
    bo.state_budget = 5000;
    bo.ragel_limits.cpu_seconds = 5;
    bo.ragel_limits.memory_mb = 2048;
    fixtures::Pack pack;
    // A pattern whose piece alone exceeds the limits is refused by flc
    // (with its name); such patterns leave the batch and are counted.
    for (;;) {
      try {
        pack = fixtures::build(sigs, bo);
        break;
      } catch (const faultline::RagelError &e) {
        std::string what = e.what();
        size_t at = what.find("pattern e");
        REQUIRE_MESSAGE(at != std::string::npos, what);
        std::string id = what.substr(at + 8, 5);
        size_t k = 0;
        while (k < sigs.size() && sigs[k].id != id) k++;
        REQUIRE(k < sigs.size());
        MESSAGE("refused as too large for a DFA: " << texts[k]);
        refused++;
        sigs.erase(sigs.begin() + static_cast<long>(k));
        refs.erase(refs.begin() + static_cast<long>(k));
        texts.erase(texts.begin() + static_cast<long>(k));
      }
    }
    REQUIRE(fixtures::open(&pack) == faultline::Status::kOk);
    faultline::LineMatcher matcher;
    REQUIRE(matcher.create(&pack.view) == faultline::Status::kOk);

    for (int l = 0; l < lines_per_batch; l++) {
      std::string line = gen.line();
      Collector c;
      c.pack = &pack.view;
      matcher.match_line(reinterpret_cast<const uint8_t *>(line.data()), line.size(), collect, &c);
      for (uint32_t p = 0; p < sigs.size(); p++) {
        const RE2 &re = *refs[p];
        int ngroups = re.NumberOfCapturingGroups() + 1;
        std::vector<re2::StringPiece> groups(ngroups);
        bool want = re.Match(line, 0, line.size(), RE2::UNANCHORED, groups.data(), ngroups);
        auto it = c.hits.find(p);
        bool got = it != c.hits.end();
        compared++;
        if (want != got) {
          FAIL_CHECK("match disagrees for pattern " << texts[p] << " on line \"" << line << "\": RE2 " << want << ", faultline "
                                                    << got);
          continue;
        }
        if (!want) continue;
        matched++;
        const Hit &h = it->second;
        if (h.slots.empty()) {
          // Only patterns without captures that a DFA decides (exact
          // pieces, or the whole-pattern DFA) skip the program.
          CHECK((pack.view.pattern(p)->exact() || pack.view.pattern(p)->confirm()));
          CHECK(pack.view.pattern(p)->slot_count() == 2);
          continue;
        }
        auto span = [&](const re2::StringPiece &g) {
          return g.data() ? std::pair<int, int>(static_cast<int>(g.data() - line.data()),
                                                static_cast<int>(g.data() - line.data() + g.size()))
                          : std::pair<int, int>(-1, -1);
        };
        auto whole = span(groups[0]);
        CHECK_MESSAGE((whole == std::pair<int, int>(h.slots[0], h.slots[1])),
                      "whole match of " << texts[p] << " on \"" << line << "\"");
        for (const auto &named : re.NamedCapturingGroups()) {
          const std::string &name = named.first;
          const int index = named.second;
          const auto *names = pack.view.pattern(p)->capture_names();
          for (uint32_t g = 0; g < names->size(); g++) {
            if (names->Get(g)->str() != name) continue;
            captures_compared++;
            auto theirs = span(groups[index]);
            std::pair<int, int> ours(h.slots[2 * (g + 1)], h.slots[2 * (g + 1) + 1]);
            CHECK_MESSAGE((theirs == ours), "capture " << name << " of " << texts[p] << " on \"" << line << "\": RE2 ["
                                                       << theirs.first << "," << theirs.second << "), faultline [" << ours.first
                                                       << "," << ours.second << ")");
          }
        }
      }
    }
  }
  CHECK(refused * 100 <= static_cast<size_t>(batches * patterns_per_batch));  // at most 1% refused
  MESSAGE("compared " << compared << " (pattern, line) pairs, " << matched << " matches, " << captures_compared << " captures");
  CHECK(matched > compared / 50);  // the generator must produce real matches, or the test proves little
}

}  // namespace

TEST_CASE("differential: random dialect patterns agree with RE2 (default piece options)") {
  run_differential(20261202, 40, 40, 250, faultline::PieceOptions{});
}

TEST_CASE("differential: random dialect patterns agree with RE2 (every piece kept, narrow gaps)") {
  faultline::PieceOptions opt;
  opt.min_piece_bytes = 1;  // more, shorter pieces: exercises the DFA union harder
  opt.wide_class = 4;       // more constructs count as gaps: exercises splitting
  run_differential(7, 40, 40, 250, opt);
}
