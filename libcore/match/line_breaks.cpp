#include "match/line_breaks.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace faultline {

void line_masks64(const uint8_t *p, uint64_t *special, uint64_t *newline) {
#if defined(__SSE2__)
  const __m128i nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'), esc = _mm_set1_epi8(0x1b);
  uint64_t s = 0, n = 0;
  for (int k = 0; k < 4; k++) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + 16 * k));
    const __m128i is_nl = _mm_cmpeq_epi8(v, nl);
    const __m128i hit = _mm_or_si128(_mm_or_si128(is_nl, _mm_cmpeq_epi8(v, cr)), _mm_cmpeq_epi8(v, esc));
    s |= static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(hit))) << (16 * k);
    n |= static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(is_nl))) << (16 * k);
  }
  *special = s;
  *newline = n;
#else
  uint64_t s = 0, n = 0;
  for (int i = 0; i < 64; i++) {
    s |= static_cast<uint64_t>(line_special(p[i])) << i;
    n |= static_cast<uint64_t>(p[i] == '\n') << i;
  }
  *special = s;
  *newline = n;
#endif
}

}  // namespace faultline
