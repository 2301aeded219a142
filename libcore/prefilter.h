// The literal prefilter (see Prefilter in pack.fbs): shared by flc, which
// fills the set, and the line matcher, which tests lines against it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace faultline {

inline constexpr uint32_t kPrefilterBits = 18;
inline constexpr uint32_t kPrefilterBytes = (1u << kPrefilterBits) / 8;

inline uint8_t ascii_lower(uint8_t c) { return c >= 'A' && c <= 'Z' ? static_cast<uint8_t>(c + 32) : c; }

// Bit index of a 3-gram given as (b0 | b1 << 8 | b2 << 16), lower-cased.
inline uint32_t prefilter_slot(uint32_t gram) { return (gram * 0x9E3779B1u) >> (32 - kPrefilterBits); }

// True when some 3-gram of `line` is in the set.
inline bool prefilter_hit(const uint8_t *bits, const uint8_t *line, size_t len) {
  if (len < 3) return false;
  uint32_t gram = ascii_lower(line[0]) | static_cast<uint32_t>(ascii_lower(line[1])) << 8;
  for (size_t i = 2; i < len; i++) {
    gram = (gram & 0xffffu) | static_cast<uint32_t>(ascii_lower(line[i])) << 16;
    uint32_t slot = prefilter_slot(gram);
    if ((bits[slot >> 3] >> (slot & 7)) & 1u) return true;
    gram >>= 8;
  }
  return false;
}

}  // namespace faultline
