// The one reader of the size-prefixed option structs of every create/open
// call (fl_pack_options, fl_scanner_options, fl_diagnoser_options), by the
// rule of STYLE.md: NULL means defaults; struct_size below the first released
// layout is refused; a larger struct (a newer header) is accepted only when
// the part this library does not know is zero, so that no option a caller set
// is silently ignored; the known part is copied over the defaults. Reserved
// fields must be zero, so that a later release can give them a meaning.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "faultline.h"

namespace faultline {

// Size of each struct's first released layout (0.1): every field up to the allocator.
template <typename T>
inline constexpr size_t kFirstLayout = sizeof(T);
// fl_pack_options grew in 0.2 (verifier, signature): its 0.1 layout ends at the verifier.
template <>
inline constexpr size_t kFirstLayout<fl_pack_options> = offsetof(fl_pack_options, verifier);

// The flags each struct defines; every other bit is reserved.
template <typename T>
inline constexpr uint32_t kKnownFlags = 0;
template <>
inline constexpr uint32_t kKnownFlags<fl_pack_options> = FL_PACK_REQUIRE_SIGNATURE;

// Every option struct starts with struct_size and flags.
template <typename T>
bool reserved_fields_zero(const T &o) {
  if ((o.flags & ~kKnownFlags<T>) != 0) return false;
  if constexpr (requires { o.reserved; })
    return o.reserved == 0;
  else
    return true;
}

// Fills `out` from `given` over the defaults already in `out`. Returns false
// when `given` breaks the rule above.
template <typename T>
bool read_options(const T *given, T *out) {
  if (!given) return true;
  const size_t known = sizeof(T), size = given->struct_size;
  // A released layout (the first one, or this one), or a newer one: a size in
  // between was never a layout of any header.
  if (size < kFirstLayout<T> || (size > kFirstLayout<T> && size < known)) return false;
  const auto *tail = reinterpret_cast<const uint8_t *>(given);
  for (size_t i = known; i < size; i++)
    if (tail[i]) return false;
  std::memcpy(out, given, size < known ? size : known);
  out->struct_size = static_cast<uint32_t>(known);
  return reserved_fields_zero(*out);
}

// fl_*_options_init: `size` bytes of defaults (a caller built against a newer
// header may pass more; the tail is zeroed).
template <typename T>
fl_status init_options(T *opts, size_t size, const T &defaults) {
  if (!opts || size < sizeof(T)) return FL_E_INVALID_ARG;
  std::memset(static_cast<void *>(opts), 0, size);
  std::memcpy(static_cast<void *>(opts), &defaults, sizeof(T));
  return FL_OK;
}

}  // namespace faultline
