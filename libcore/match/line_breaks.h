// Finding the bytes that end or disturb a line ('\n', '\r', ESC) 64 bytes at a
// time: how the scanner counts the lines the literal filter rules out without
// looking at each one (AVX2 where the CPU has it, else SSE2, which every
// x86-64 CPU has; portable C elsewhere).
#pragma once

#include <cstddef>
#include <cstdint>

namespace faultline {

// Of the 64 bytes at p (all read): bit i of *special set when p[i] is '\n',
// '\r' or ESC (0x1b), of *newline when it is '\n'. Returns the number of '\n'.
uint32_t line_masks64(const uint8_t *p, uint64_t *special, uint64_t *newline);

inline bool line_special(uint8_t c) { return c == '\n' || c == '\r' || c == 0x1b; }

}  // namespace faultline
