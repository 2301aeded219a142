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

// Plain text skipped a run of 64-byte blocks at a time: from p, every block
// holding no '\r' and no ESC, its '\n' counted. *line is where the current
// line began (moved past each block's last '\n'); a line whose first break
// lies more than max_line_bytes (at least 63) after its start is counted in
// *cut_lines (lines inside a block are shorter). Stops before the first
// block with a '\r' or ESC, or fewer than 64 bytes before end; returns there.
struct PlainBlocks {
  const uint8_t *line;
  uint64_t newlines = 0, cut_lines = 0;
};
const uint8_t *line_skip_plain_blocks(const uint8_t *p, const uint8_t *end, size_t max_line_bytes, PlainBlocks *out);

inline bool line_special(uint8_t c) { return c == '\n' || c == '\r' || c == 0x1b; }

}  // namespace faultline
