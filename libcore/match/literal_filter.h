// The literal filter: finds the lines that can match some entry pattern by
// looking for the patterns' keys (required literals chosen by flc) across a
// whole run of text, so that the other lines cost no per-line work at all.
//
// Long keys (stride + 3 bytes or more) are found by sampling: only every
// stride-th position's 4-gram is hashed into a bit set of the keys' window
// grams; a window holds exactly one sampled position, so no key is missed.
// Short keys (4 to stride + 2 bytes) are found with bucketed nibble masks on
// a 4-byte fingerprint ("Teddy"), 32 positions per step with AVX2, 16 with
// SSSE3, one with the portable fallback; the CPU is checked at run time.
// Every candidate is verified against the whole key before it counts.
#pragma once

#include <cstddef>
#include <cstdint>

#include "pack_generated.h"

namespace faultline {

inline constexpr uint32_t kLiteralBitsLog2 = 18;
inline constexpr uint32_t kLiteralBitsBytes = (1u << kLiteralBitsLog2) / 8;
inline constexpr uint32_t kLiteralMaxStride = 8;
inline constexpr uint32_t kLiteralBuckets = 8;
inline constexpr uint32_t kLiteralMaskBytes = 4 * 32;

inline uint8_t literal_lower(uint8_t c) { return c >= 'A' && c <= 'Z' ? static_cast<uint8_t>(c + 32) : c; }

inline uint32_t literal_load_gram(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | static_cast<uint32_t>(p[3]) << 24; }
// Bit of a 4-gram in the bit set, and its home slot in a table of 2^log2 slots.
inline uint32_t literal_bit(uint32_t gram) { return (gram * 0x9E3779B1u) >> (32 - kLiteralBitsLog2); }
inline uint32_t literal_slot(uint32_t gram, uint32_t log2) { return (gram * 0x85EBCA6Bu) >> (32 - log2); }

using LiteralKeys = flatbuffers::Vector<flatbuffers::Offset<fb::LiteralKey>>;

// A verified pack's filter, ready to search. Borrowed from the pack.
struct LiteralFilterView {
  bool usable = false;  // present and complete: lines without a key can be skipped
  uint32_t stride = 1;
  const LiteralKeys *long_keys = nullptr;
  const uint8_t *bits = nullptr;
  const fb::LiteralSlot *slots = nullptr;
  uint32_t slot_log2 = 0;
  const fb::LiteralRef *refs = nullptr;
  const uint8_t *long_text = nullptr;
  const LiteralKeys *short_keys = nullptr;  // null when there are none
  const uint32_t *bucket_first = nullptr;
  const uint8_t *masks = nullptr;
  bool short_ascii = false;  // no short key's fingerprint has a byte >= 0x80
  const flatbuffers::Vector<uint32_t> *framing_dfas = nullptr;
};

// Fills `out` from a pack's filter (already verified by the pack reader).
void literal_filter_view(const fb::LiteralFilter *f, LiteralFilterView *out);

// Start of the first key occurrence (long or short) lying wholly in
// [begin, end), scanning forward; nullptr when there is none. Within one
// line-aligned run the occurrence returned is in the earliest line holding one.
const uint8_t *literal_find_long(const LiteralFilterView &f, const uint8_t *begin, const uint8_t *end);
const uint8_t *literal_find_short(const LiteralFilterView &f, const uint8_t *begin, const uint8_t *end);

// Calls fn for every key occurrence lying wholly in [begin, end) (a line):
// a key that occurs several times is reported several times.
void literal_each_key(const LiteralFilterView &f, const uint8_t *begin, const uint8_t *end,
                      void (*fn)(void *, const fb::LiteralKey *), void *ctx);

// Which short-key kernel this CPU runs: "avx2", "ssse3" or "portable".
const char *literal_short_kernel();

}  // namespace faultline
