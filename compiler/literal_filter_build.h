// Planning the literal filter, flc's side of libcore/match/literal_filter.{h,cpp}:
// required literals and the key plan.
//
// For each entry pattern flc finds a set of literals such that every line the
// pattern matches contains one of them (`(Error|Exception): ` gives two). The
// runtime looks for these keys across whole chunks (libcore/match/literal_filter.h):
// only lines that hold one reach the DFAs. Which literal a pattern is keyed on
// decides the speed of everything, so candidates are scored by how often their
// 4-grams occur in real healthy logs (gram_frequency.inc), not by length.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "regex_ast.h"

namespace faultline {

struct Literal {
  std::string bytes;      // lower-cased when caseless
  bool caseless = false;  // some position matches either case: compare ASCII case-insensitively
  bool operator==(const Literal &o) const { return bytes == o.bytes && caseless == o.caseless; }
};

// Occurrences per 10 million bytes of healthy log of a 4-gram (any case) and
// an estimate for a whole literal (its rarest gram; < 4 bytes: very common).
double gram_frequency(uint32_t gram);
double literal_frequency(const Literal &lit);

// The cheapest set of literals, each at least min_len bytes, one of which
// every match of `re` contains; nullopt when there is none.
std::optional<std::vector<Literal>> required_literals(const regex::Regex &re, size_t min_len, uint32_t stride);

// A key of the filter. A long key (stride + 3 bytes or more) is found through
// its window, the stride + 3 bytes whose grams are rarest: the runtime probes
// every stride-th position, and each window occurrence holds exactly one
// probe. A short key is found by its fingerprint, its rarest 4 bytes, with
// the SIMD bucket search.
struct LiteralKey {
  Literal literal;
  bool is_short = false;
  uint32_t anchor = 0;  // long: window offset; short: fingerprint offset
  double cost = 0;      // expected work per 10 MB of healthy log
};

struct LiteralPlan {
  uint32_t stride = 1;
  std::vector<LiteralKey> keys;                     // deduplicated
  std::vector<std::vector<uint32_t>> pattern_keys;  // per pattern given: its key indices (empty: unkeyed)
  bool complete = false;                            // every pattern has keys
  double probe_cost = 0, key_cost = 0;              // of the plan, per 10 MB of healthy log
};

// Chooses the stride and every pattern's keys for the cheapest whole plan.
// With `stride` set, plans for that stride only.
LiteralPlan plan_literals(const std::vector<const regex::Regex *> &patterns, uint32_t stride = 0);

// The plan as the pack stores it (see LiteralFilter in libcore/match/pack.fbs).
struct LiteralTables {
  std::vector<uint32_t> long_keys, short_keys;  // plan key indices; short keys grouped by bucket
  std::vector<uint8_t> bits;                    // kLiteralBitsBytes
  struct Slot {
    uint32_t gram = 0, first = 0, count = 0;  // count 0: empty
  };
  std::vector<Slot> slots;                          // power of two, linear probing
  std::vector<std::pair<uint32_t, uint32_t>> refs;  // (index into long_keys, offset in window)
  std::vector<uint32_t> bucket_first;               // kLiteralBuckets + 1
  std::vector<uint8_t> masks;                       // kLiteralMaskBytes
};
LiteralTables build_literal_tables(const LiteralPlan &plan);

// Window offset and its cost (sum of its grams' frequencies) for a stride.
uint32_t best_window(const Literal &lit, uint32_t stride, double *cost);

}  // namespace faultline
