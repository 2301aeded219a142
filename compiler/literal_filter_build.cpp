#include "literal_filter_build.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "match/literal_filter.h"

namespace faultline {

namespace {

struct GramCount {
  uint32_t gram;
  uint32_t per_10mb;
};

const GramCount kGramCounts[] = {
#include "gram_frequency.inc"
};

// Grams not in the table are rarer than its last row (119): most of them
// never occur in the healthy logs at all.
constexpr double kUnlistedGram = 5;

// Relative costs, in units of one probe: a probe whose gram is in the set goes
// to the hash table and compares a window; a literal occurrence sends its line
// through the DFAs and programs. The short-key pass over every byte costs
// about as much as probing every twelfth; each short key adds bucket pressure
// (false candidates). Calibrated with bench/run on the real logs: the model
// picks stride 5, and strides 4 to 6 measured about 8 % faster than 3.
constexpr double kGramHitCost = 3;
constexpr double kLineCost = 150;
constexpr double kShortPassCost = 1e7 / 12;
constexpr double kShortKeyCost = 2e4;
constexpr size_t kMaxShortKeys = 48;

constexpr size_t kMaxSet = 16;       // strings in an exact set or a key set
constexpr size_t kMaxLiteral = 256;  // bytes in one literal

uint8_t lower(uint8_t c) { return c >= 'A' && c <= 'Z' ? static_cast<uint8_t>(c + 32) : c; }

const std::unordered_map<uint32_t, double> &gram_table() {
  static const std::unordered_map<uint32_t, double> table = [] {
    std::unordered_map<uint32_t, double> t;
    for (const auto &g : kGramCounts) t.emplace(g.gram, g.per_10mb);
    return t;
  }();
  return table;
}

uint32_t gram_at(const std::string &s, size_t i) {
  return lower(s[i]) | lower(s[i + 1]) << 8 | lower(s[i + 2]) << 16 | static_cast<uint32_t>(lower(s[i + 3])) << 24;
}

std::vector<uint32_t> gram_variants(const std::string &bytes, size_t at, bool caseless);

// How often the 4 bytes of `l` at `at` occur in healthy text, as the bit set
// sees them: exactly, or in any case when the literal is caseless (a
// case-sensitive " inf" is not made common by "NCCL INFO").
double literal_gram_frequency(const Literal &l, size_t at) {
  double f = 0;
  for (uint32_t v : gram_variants(l.bytes, at, l.caseless)) {
    auto it = gram_table().find(v);
    if (it != gram_table().end()) f += it->second;
  }
  return f > 0 ? f : kUnlistedGram;
}

using Set = std::vector<Literal>;

bool is_short(const Literal &l, uint32_t stride) { return l.bytes.size() < stride + 3; }

// The fingerprint of a short key: its rarest 4 bytes.
uint32_t best_fingerprint(const Literal &l, double *freq) {
  uint32_t best = 0;
  double best_f = 1e18;
  for (size_t o = 0; o + 4 <= l.bytes.size(); o++) {
    double f = literal_gram_frequency(l, o);
    if (f < best_f) best_f = f, best = static_cast<uint32_t>(o);
  }
  if (freq) *freq = best_f;
  return best;
}

// Expected work per 10 MB of healthy log of keying on `l`: the filter's
// candidates it causes plus the lines it sends to the DFAs.
double key_cost(const Literal &l, uint32_t stride) {
  double filter = 0;
  if (is_short(l, stride)) {
    best_fingerprint(l, &filter);
    filter = kShortKeyCost + kGramHitCost * filter;
  } else {
    best_window(l, stride, &filter);
    filter *= kGramHitCost;
  }
  return filter + kLineCost * literal_frequency(l);
}

// What is known of a node: its whole language when small (`exact`), and the
// cheapest set one of which every match contains (`req`).
struct Info {
  std::optional<Set> exact;
  std::optional<Set> req;
  double req_cost = 0;
  // The requirement with the fewest strings (the cheaper among equals): what
  // an alternation falls back to when its kids' cheapest sets together
  // exceed kMaxSet ("(cuda|hip)Error(A|B|...)|CUDA_ERROR_(A|B|...)").
  std::optional<Set> few;
  double few_cost = 0;
  // When not exact: strings every match starts (ends) with, so that a
  // neighbouring literal run can be extended into it ("to " + "0.").
  std::optional<Set> prefix, suffix;
};

const std::optional<Set> &starts(const Info &i) { return i.exact ? i.exact : i.prefix; }
const std::optional<Set> &ends(const Info &i) { return i.exact ? i.exact : i.suffix; }

class Analyzer {
 public:
  Analyzer(size_t min_len, uint32_t stride) : min_len_(min_len), stride_(stride) {}

  Info analyze(const regex::Node &n) {
    using regex::NodeKind;
    Info info;
    switch (n.kind) {
      case NodeKind::kEmpty:
      case NodeKind::kAssert:
        info.exact = Set{Literal{}};
        break;
      case NodeKind::kBytes:
        info.exact = byte_set(n.bytes);
        break;
      case NodeKind::kGroup:
        return analyze(*n.kids[0]);
      case NodeKind::kRepeat:
        return repeat(n);
      case NodeKind::kAlt:
        return alternation(n);
      case NodeKind::kConcat:
        return concat(n);
    }
    return info;
  }

  // The cheaper of a node's exact set (taken as keys) and its requirement.
  std::optional<Set> best(const Info &info, double *cost) {
    std::optional<Set> out;
    double c = 0;
    if (info.req) out = info.req, c = info.req_cost;
    if (info.exact) {
      double ec = 0;
      if (valid(*info.exact, &ec) && (!out || ec < c)) out = info.exact, c = ec;
    }
    if (cost) *cost = c;
    return out;
  }

 private:
  // A small set of bytes as single-byte strings; a letter in both cases is
  // one caseless byte. Line breaks never occur inside a line.
  std::optional<Set> byte_set(const regex::ByteSet &bytes) {
    regex::ByteSet b = bytes;
    b.reset('\n');
    b.reset('\r');
    Set out;
    for (int c = 0; c < 256; c++) {
      if (!b.test(c)) continue;
      bool folded = c >= 'A' && c <= 'Z' && b.test(c + 32);
      if (folded) b.reset(c + 32);
      out.push_back(Literal{std::string(1, static_cast<char>(folded ? c + 32 : c)), folded});
      if (out.size() > 3) return std::nullopt;  // wider classes (\s, [0-9a-f]) make poor literals
    }
    if (out.empty()) return std::nullopt;
    return out;
  }

  static std::optional<Set> product(const Set &a, const Set &b) {
    if (a.size() * b.size() > kMaxSet) return std::nullopt;
    Set out;
    for (const auto &x : a)
      for (const auto &y : b) {
        if (x.bytes.size() + y.bytes.size() > kMaxLiteral) return std::nullopt;
        Literal l{x.bytes + y.bytes, x.caseless || y.caseless};
        if (l.caseless)
          std::transform(l.bytes.begin(), l.bytes.end(), l.bytes.begin(), [](char c) { return static_cast<char>(lower(c)); });
        if (std::find(out.begin(), out.end(), l) == out.end()) out.push_back(std::move(l));
      }
    return out;
  }

  bool valid(const Set &s, double *cost) {
    double c = 0;
    for (const auto &l : s) {
      if (l.bytes.size() < min_len_) return false;
      c += key_cost(l, stride_);
    }
    *cost = c;
    return !s.empty();
  }

  void offer(Info *info, const Set &s) {
    double c = 0;
    if (valid(s, &c)) offer_valid(info, s, c);
  }
  void offer(Info *info, const Info &kid) {
    if (kid.req) offer_valid(info, *kid.req, kid.req_cost);
    if (kid.few) offer_valid(info, *kid.few, kid.few_cost);
    if (kid.exact) offer(info, *kid.exact);
  }
  static void offer_valid(Info *info, const Set &s, double cost) {
    if (!info->req || cost < info->req_cost) info->req = s, info->req_cost = cost;
    if (!info->few || s.size() < info->few->size() || (s.size() == info->few->size() && cost < info->few_cost))
      info->few = s, info->few_cost = cost;
  }

  // A kid's cheapest set, or its smallest one when `few`.
  std::optional<Set> pick(const Info &kid, bool few, double *cost) {
    if (!few) return best(kid, cost);
    std::optional<Set> out = kid.few;
    double c = kid.few_cost;
    if (kid.exact) {
      double ec = 0;
      if (valid(*kid.exact, &ec) && (!out || kid.exact->size() < out->size() || (kid.exact->size() == out->size() && ec < c)))
        out = kid.exact, c = ec;
    }
    *cost = c;
    return out;
  }

  Info repeat(const regex::Node &n) {
    Info kid = analyze(*n.kids[0]);
    Info info;
    if (n.min == 0) {
      if (n.max == 1 && kid.exact) {
        Set s{Literal{}};
        for (const auto &l : *kid.exact)
          if (std::find(s.begin(), s.end(), l) == s.end()) s.push_back(l);
        if (s.size() <= kMaxSet) info.exact = s;
      }
      return info;
    }
    offer(&info, kid);
    info.prefix = starts(kid);
    info.suffix = ends(kid);
    if (kid.exact && n.max == n.min && n.min <= 4) {
      std::optional<Set> s = Set{Literal{}};
      for (int i = 0; i < n.min && s; i++) s = product(*s, *kid.exact);
      info.exact = s;
      if (s) offer(&info, *s);
    }
    return info;
  }

  Info alternation(const regex::Node &n) {
    Info info;
    Set exact;
    bool all_exact = true;
    std::vector<Info> kids;
    for (const auto &k : n.kids) kids.push_back(analyze(*k));
    for (const Info &kid : kids) {
      if (kid.exact && all_exact) {
        for (const auto &l : *kid.exact)
          if (std::find(exact.begin(), exact.end(), l) == exact.end()) exact.push_back(l);
      } else {
        all_exact = false;
      }
    }
    if (all_exact && exact.size() <= kMaxSet) info.exact = exact;
    // Every match holds one string of its kid's set: the union of the
    // cheapest sets, or, when that has too many strings, of the smallest.
    for (bool few : {false, true}) {
      Set req;
      double cost = 0;
      bool all_req = true;
      for (const Info &kid : kids) {
        double c = 0;
        std::optional<Set> b = pick(kid, few, &c);
        if (!b) {
          all_req = false;
          break;
        }
        for (const auto &l : *b)
          if (std::find(req.begin(), req.end(), l) == req.end()) req.push_back(l);
        cost += c;
      }
      if (all_req && req.size() <= kMaxSet) offer_valid(&info, req, cost);
    }
    info.prefix = join(kids, true);
    info.suffix = join(kids, false);
    if (info.exact) offer(&info, *info.exact);
    return info;
  }

  // Union of the kids' prefixes (or suffixes), when every kid has them.
  static std::optional<Set> join(const std::vector<Info> &kids, bool prefix) {
    Set out;
    for (const Info &kid : kids) {
      const std::optional<Set> &part = prefix ? starts(kid) : ends(kid);
      if (!part) return std::nullopt;
      for (const auto &l : *part)
        if (std::find(out.begin(), out.end(), l) == out.end()) out.push_back(l);
    }
    if (out.size() > kMaxSet) return std::nullopt;
    return out;
  }

  // Runs of exact kids multiply into longer literals ("CUDA" "(out|OUT)" ...);
  // a kid that is not exact ends the run, extended by the kid's prefix, and
  // the next run starts with its suffix. Each run and each kid's own
  // requirement is a candidate.
  Info concat(const regex::Node &n) {
    Info info;
    std::vector<Info> kids;
    for (const auto &k : n.kids) kids.push_back(analyze(*k));
    Set run{Literal{}};
    bool all_exact = true;
    for (const Info &kid : kids) {
      if (kid.exact) {
        if (std::optional<Set> p = product(run, *kid.exact)) {
          run = *p;
          continue;
        }
        offer(&info, run);
        run = *kid.exact;
        all_exact = false;
        continue;
      }
      all_exact = false;
      offer(&info, run);
      if (kid.prefix)
        if (std::optional<Set> p = product(run, *kid.prefix)) offer(&info, *p);
      offer(&info, kid);
      run = kid.suffix ? *kid.suffix : Set{Literal{}};
    }
    offer(&info, run);
    if (all_exact) {
      info.exact = run;
      return info;
    }
    info.prefix = affix(kids, true);
    info.suffix = affix(kids, false);
    return info;
  }

  // What every match of the sequence starts (ends) with: the exact kids from
  // that side multiplied, then the first other kid's prefix (suffix).
  static std::optional<Set> affix(const std::vector<Info> &kids, bool prefix) {
    Set acc{Literal{}};
    for (size_t i = 0; i < kids.size(); i++) {
      const Info &kid = kids[prefix ? i : kids.size() - 1 - i];
      const std::optional<Set> &part = prefix ? starts(kid) : ends(kid);
      if (!part) break;
      std::optional<Set> next = prefix ? product(acc, *part) : product(*part, acc);
      if (!next) break;
      acc = *next;
      if (!kid.exact) break;
    }
    return acc;
  }

  size_t min_len_;
  uint32_t stride_;
};

}  // namespace

double gram_frequency(uint32_t gram) {
  auto it = gram_table().find(gram);
  return it == gram_table().end() ? kUnlistedGram : it->second;
}

double literal_frequency(const Literal &lit) {
  if (lit.bytes.size() < 4) return 1e6;
  double f = 1e9;
  for (size_t i = 0; i + 4 <= lit.bytes.size(); i++) f = std::min(f, literal_gram_frequency(lit, i));
  return f;
}

uint32_t best_window(const Literal &lit, uint32_t stride, double *cost) {
  const size_t w = stride + 3;
  uint32_t best = 0;
  double best_cost = 1e18;
  for (size_t o = 0; o + w <= lit.bytes.size(); o++) {
    double c = 0;
    for (size_t i = 0; i < stride; i++) c += literal_gram_frequency(lit, o + i);
    if (c < best_cost) best_cost = c, best = static_cast<uint32_t>(o);
  }
  if (cost) *cost = best_cost;
  return best;
}

std::optional<std::vector<Literal>> required_literals(const regex::Regex &re, size_t min_len, uint32_t stride) {
  Analyzer a(min_len, stride);
  Info info = a.analyze(*re.root);
  return a.best(info, nullptr);
}

namespace {

// How often a probe of healthy text lands on the bit of a window gram while
// reading another gram: the bit set hashes 4-grams into 2^18 bits, and a
// common gram ("--lr", " NCC", "....") that shares a bit with a window sends
// every probe of it to the hash table. From the frequency model: the
// occurrences of the common grams whose bit is this one.
double bit_noise(uint32_t gram) {
  static const std::unordered_map<uint32_t, double> noise = [] {
    std::unordered_map<uint32_t, double> n;
    for (const auto &g : kGramCounts) n[literal_bit(g.gram)] += g.per_10mb;
    return n;
  }();
  auto it = noise.find(literal_bit(gram));
  return it == noise.end() ? 0 : it->second;
}

// What a window gram at `at` of a key costs in collisions, over the case
// variants the bit set holds for it.
double collision_cost(const LiteralKey &k, uint32_t at) {
  double c = 0;
  for (uint32_t v : gram_variants(k.literal.bytes, at, k.literal.caseless)) c += bit_noise(v);
  return c;
}

// Keys that differ only outside their windows ("Attempted loss scale: 2,
// reducing to 1" and 29 others) would share one window: every probe hitting
// it verifies them all. Each long key's window is moved to where its grams
// are both rare and least shared with other keys' windows, and whose bits
// common grams do not share.
void spread_windows(LiteralPlan *plan) {
  constexpr double kSharedFloor = 50;  // a shared gram costs even when rare in healthy logs
  const uint32_t stride = plan->stride;
  std::unordered_map<uint32_t, int> users;
  auto grams = [&](const LiteralKey &k, uint32_t anchor) {
    std::vector<uint32_t> g;
    for (uint32_t i = 0; i < stride; i++) g.push_back(gram_at(k.literal.bytes, anchor + i));
    return g;
  };
  for (const auto &k : plan->keys)
    if (!k.is_short)
      for (uint32_t g : grams(k, k.anchor)) users[g]++;
  for (int pass = 0; pass < 2; pass++)
    for (auto &k : plan->keys) {
      if (k.is_short) continue;
      for (uint32_t g : grams(k, k.anchor)) users[g]--;
      double best = 1e18;
      for (uint32_t o = 0; o + stride + 3 <= k.literal.bytes.size(); o++) {
        double c = 0;
        for (uint32_t i = 0; i < stride; i++)
          c += (literal_gram_frequency(k.literal, o + i) + kSharedFloor) * (1 + users[gram_at(k.literal.bytes, o + i)]);
        for (uint32_t i = 0; i < stride; i++) c += collision_cost(k, o + i);
        if (c < best) best = c, k.anchor = o;
      }
      for (uint32_t g : grams(k, k.anchor)) users[g]++;
    }
}

}  // namespace

LiteralPlan plan_literals(const std::vector<const regex::Regex *> &patterns, uint32_t forced_stride) {
  LiteralPlan best;
  double best_total = -1;
  for (uint32_t stride = kLiteralMaxStride; stride >= 1; stride--) {
    if (forced_stride && stride != forced_stride) continue;
    LiteralPlan plan;
    plan.stride = stride;
    plan.complete = true;
    plan.probe_cost = 1e7 / stride;
    size_t short_keys = 0;
    for (const regex::Regex *re : patterns) {
      std::vector<uint32_t> ids;
      std::optional<std::vector<Literal>> set = required_literals(*re, 4, stride);
      if (!set) plan.complete = false;
      for (const auto &lit : set ? *set : std::vector<Literal>{}) {
        auto it = std::find_if(plan.keys.begin(), plan.keys.end(), [&](const LiteralKey &k) { return k.literal == lit; });
        if (it == plan.keys.end()) {
          LiteralKey key{lit, is_short(lit, stride), 0, key_cost(lit, stride)};
          key.anchor = key.is_short ? best_fingerprint(lit, nullptr) : best_window(lit, stride, nullptr);
          short_keys += key.is_short;
          plan.key_cost += key.cost;
          plan.keys.push_back(key);
          it = plan.keys.end() - 1;
        }
        ids.push_back(static_cast<uint32_t>(it - plan.keys.begin()));
      }
      plan.pattern_keys.push_back(ids);
    }
    spread_windows(&plan);
    if (short_keys) plan.probe_cost += kShortPassCost;
    if (short_keys > kMaxShortKeys && !forced_stride) continue;
    double total = plan.probe_cost + plan.key_cost;
    if (best_total < 0 || total < best_total) best = std::move(plan), best_total = total;
  }
  return best;
}

namespace {

// Every case variant of a 4-gram whose key is caseless (letters only vary).
std::vector<uint32_t> gram_variants(const std::string &bytes, size_t at, bool caseless) {
  std::vector<uint32_t> out{0};
  for (size_t i = 0; i < 4; i++) {
    const uint8_t c = static_cast<uint8_t>(bytes[at + i]);
    std::vector<uint32_t> next;
    for (uint32_t v : out) {
      next.push_back(v | static_cast<uint32_t>(c) << (8 * i));
      if (caseless && c >= 'a' && c <= 'z') next.push_back(v | static_cast<uint32_t>(c - 32) << (8 * i));
    }
    out = next;
  }
  return out;
}

}  // namespace

LiteralTables build_literal_tables(const LiteralPlan &plan) {
  LiteralTables t;
  t.bits.assign(kLiteralBitsBytes, 0);
  std::map<uint32_t, std::vector<std::pair<uint32_t, uint32_t>>> gram_refs;
  std::vector<uint32_t> shorts;
  for (uint32_t k = 0; k < plan.keys.size(); k++) {
    const LiteralKey &key = plan.keys[k];
    if (key.is_short) {
      shorts.push_back(k);
      continue;
    }
    const uint32_t index = static_cast<uint32_t>(t.long_keys.size());
    t.long_keys.push_back(k);
    for (uint32_t o = 0; o < plan.stride; o++)
      for (uint32_t g : gram_variants(key.literal.bytes, key.anchor + o, key.literal.caseless)) {
        auto &refs = gram_refs[g];
        if (std::find(refs.begin(), refs.end(), std::make_pair(index, o)) == refs.end()) refs.emplace_back(index, o);
      }
  }
  // Hash table at most half full: probes for absent grams stop early.
  uint32_t log2 = 4;
  while ((1u << log2) < 2 * gram_refs.size()) log2++;
  t.slots.assign(1u << log2, LiteralTables::Slot{});
  for (const auto &[gram, refs] : gram_refs) {
    const uint32_t b = literal_bit(gram);
    t.bits[b >> 3] |= static_cast<uint8_t>(1u << (b & 7));
    uint32_t s = literal_slot(gram, log2);
    while (t.slots[s].count) s = (s + 1) & ((1u << log2) - 1);
    t.slots[s] = LiteralTables::Slot{gram, static_cast<uint32_t>(t.refs.size()), static_cast<uint32_t>(refs.size())};
    t.refs.insert(t.refs.end(), refs.begin(), refs.end());
  }

  // Short keys into buckets: sorted by fingerprint so that keys sharing
  // bytes share a bucket (fewer nibble combinations, fewer false candidates).
  auto fingerprint = [&](uint32_t k) { return plan.keys[k].literal.bytes.substr(plan.keys[k].anchor, 4); };
  std::sort(shorts.begin(), shorts.end(), [&](uint32_t a, uint32_t b) { return fingerprint(a) < fingerprint(b); });
  t.masks.assign(kLiteralMaskBytes, 0);
  t.bucket_first.assign(kLiteralBuckets + 1, 0);
  for (uint32_t b = 0; b < kLiteralBuckets; b++) {
    const size_t first = shorts.size() * b / kLiteralBuckets, last = shorts.size() * (b + 1) / kLiteralBuckets;
    t.bucket_first[b] = static_cast<uint32_t>(first);
    t.bucket_first[b + 1] = static_cast<uint32_t>(last);
    for (size_t i = first; i < last; i++) {
      const LiteralKey &key = plan.keys[shorts[i]];
      for (int j = 0; j < 4; j++) {
        uint8_t c = static_cast<uint8_t>(key.literal.bytes[key.anchor + j]);
        for (uint8_t v : {c, static_cast<uint8_t>(key.literal.caseless && c >= 'a' && c <= 'z' ? c - 32 : c)}) {
          t.masks[32 * j + (v & 15)] |= static_cast<uint8_t>(1u << b);
          t.masks[32 * j + 16 + (v >> 4)] |= static_cast<uint8_t>(1u << b);
        }
      }
    }
  }
  t.short_keys = shorts;
  return t;
}

}  // namespace faultline
