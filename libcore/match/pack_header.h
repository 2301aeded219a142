// The fixed 64-byte header in front of every pack's FlatBuffers content. Its
// layout never changes (see PACK_FORMAT.md): a runtime of any version can
// read it and refuse what it cannot load with a precise reason.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "faultline.h"

namespace faultline {

inline constexpr char kPackMagic[4] = {'F', 'L', 'P', 'K'};
// Stated in include/faultline.h: bumped when old runtimes cannot read new
// packs (major), when fields are appended (minor).
inline constexpr uint16_t kPackFormatMajor = FL_PACK_FORMAT_MAJOR;
inline constexpr uint16_t kPackFormatMinor = FL_PACK_FORMAT_MINOR;
inline constexpr uint32_t kPackHeaderBytes = 64;
inline constexpr uint32_t kFramingEntry = 0xffffffffu;  // Pattern.entry of framing patterns

// All fields little-endian, at these offsets.
struct PackHeader {
  char magic[4];           // 0: "FLPK"
  uint16_t format_major;   // 4
  uint16_t format_minor;   // 6
  uint32_t header_bytes;   // 8: 64; content starts here
  uint32_t flags;          // 12: 0, reserved
  uint64_t total_bytes;    // 16: header + content
  uint64_t content_hash;   // 24: XXH64 (seed 0) of bytes [header_bytes, total_bytes)
  uint32_t entry_count;    // 32
  uint32_t pattern_count;  // 36
  uint32_t dfa_count;      // 40
  uint8_t reserved[20];    // 44: zero
};
static_assert(sizeof(PackHeader) == kPackHeaderBytes, "the pack header is frozen at 64 bytes");
static_assert(offsetof(PackHeader, content_hash) == 24, "the pack header layout is frozen");

inline PackHeader read_pack_header(const uint8_t *bytes) {
  PackHeader h;
  std::memcpy(&h, bytes, sizeof h);  // little-endian hosts only; see CMakeLists.txt
  return h;
}

}  // namespace faultline
