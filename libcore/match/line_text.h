// Cleaning a line before matching: ANSI escape sequences (colors, cursor
// moves) are removed so that "\x1b[31mCUDA out of memory\x1b[0m" matches
// like the plain text.
#pragma once

#include <cstddef>
#include <cstdint>

namespace faultline {

// Copies `line` to `out` (same capacity) without ANSI escape sequences:
// CSI (ESC '[' params final), OSC (ESC ']' ... BEL or ESC '\'), nF escapes
// (ESC, intermediates, final: ESC ( B) and two-byte escapes (ESC + one byte). Returns the new length. A sequence cut
// off by the end of the line is dropped.
size_t strip_ansi(const uint8_t *line, size_t len, uint8_t *out);

}  // namespace faultline
