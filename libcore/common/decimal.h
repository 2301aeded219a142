// Numbers as logs print them and the runtime reads them: an optional '-' and
// at most 18 digits (so that no value overflows), nothing else. Ranks, pids,
// exit codes and sequence numbers are all read this way, by the scanner, the
// evidence, and flc lint when it checks what a capture would give.
#pragma once

#include <cstddef>
#include <cstdint>

namespace faultline {

inline bool parse_decimal(const char *p, size_t n, int64_t *out) {
  const bool neg = n > 0 && p[0] == '-';
  size_t i = neg ? 1 : 0;
  if (n == i || n - i > 18) return false;
  int64_t v = 0;
  for (; i < n; i++) {
    if (p[i] < '0' || p[i] > '9') return false;
    v = v * 10 + (p[i] - '0');
  }
  *out = neg ? -v : v;
  return true;
}

}  // namespace faultline
