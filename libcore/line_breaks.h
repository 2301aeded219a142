// Finding the bytes that end or disturb a line ('\n', '\r', ESC) 64 bytes at a
// time: how the scanner counts the lines the literal filter rules out without
// looking at each one (SSE2 on x86-64, which every such CPU has; portable C
// elsewhere).
#pragma once

#include <cstddef>
#include <cstdint>

namespace faultline {

// Bit i set when p[i] is '\n', '\r' or ESC (0x1b), for i < 64. Reads 64 bytes.
uint64_t line_special_mask64(const uint8_t *p);

// Bit i set when p[i] is '\n', for i < 64. Reads 64 bytes.
uint64_t line_newline_mask64(const uint8_t *p);

inline bool line_special(uint8_t c) { return c == '\n' || c == '\r' || c == 0x1b; }

}  // namespace faultline
