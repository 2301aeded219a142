#include "match/line_breaks.h"

#include <atomic>

#if defined(__x86_64__)
#include <immintrin.h>
#define FL_LINE_BREAKS_X86 1
#endif

namespace faultline {

namespace {

// Set bits of v (SWAR: no popcnt instruction in baseline x86-64, no libgcc call).
inline uint32_t count_bits64(uint64_t v) {
  v = v - ((v >> 1) & 0x5555555555555555ull);
  v = (v & 0x3333333333333333ull) + ((v >> 2) & 0x3333333333333333ull);
  v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return static_cast<uint32_t>((v * 0x0101010101010101ull) >> 56);
}

#ifdef FL_LINE_BREAKS_X86
uint32_t masks_sse2(const uint8_t *p, uint64_t *special, uint64_t *newline) {
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
  return count_bits64(n);
}

// Half the instructions of the SSE2 loop: every line of a log goes through here.
__attribute__((target("avx2,popcnt"))) uint32_t masks_avx2(const uint8_t *p, uint64_t *special, uint64_t *newline) {
  const __m256i nl = _mm256_set1_epi8('\n'), cr = _mm256_set1_epi8('\r'), esc = _mm256_set1_epi8(0x1b);
  const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p));
  const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + 32));
  const __m256i nl_a = _mm256_cmpeq_epi8(a, nl), nl_b = _mm256_cmpeq_epi8(b, nl);
  const __m256i hit_a = _mm256_or_si256(_mm256_or_si256(nl_a, _mm256_cmpeq_epi8(a, cr)), _mm256_cmpeq_epi8(a, esc));
  const __m256i hit_b = _mm256_or_si256(_mm256_or_si256(nl_b, _mm256_cmpeq_epi8(b, cr)), _mm256_cmpeq_epi8(b, esc));
  *special = static_cast<uint32_t>(_mm256_movemask_epi8(hit_a)) |
             static_cast<uint64_t>(static_cast<uint32_t>(_mm256_movemask_epi8(hit_b))) << 32;
  *newline = static_cast<uint32_t>(_mm256_movemask_epi8(nl_a)) |
             static_cast<uint64_t>(static_cast<uint32_t>(_mm256_movemask_epi8(nl_b))) << 32;
  return static_cast<uint32_t>(__builtin_popcountll(*newline));
}

// Decided on first use; threads racing here store the same value.
std::atomic<int> use_avx2{-1};
#endif

#ifndef FL_LINE_BREAKS_X86
uint32_t masks_portable(const uint8_t *p, uint64_t *special, uint64_t *newline) {
  uint64_t s = 0, n = 0;
  for (int i = 0; i < 64; i++) {
    s |= static_cast<uint64_t>(line_special(p[i])) << i;
    n |= static_cast<uint64_t>(p[i] == '\n') << i;
  }
  *special = s;
  *newline = n;
  return count_bits64(n);
}
#endif

}  // namespace

uint32_t line_masks64(const uint8_t *p, uint64_t *special, uint64_t *newline) {
#ifdef FL_LINE_BREAKS_X86
  int avx2 = use_avx2.load(std::memory_order_relaxed);
  if (avx2 < 0) {
    __builtin_cpu_init();
    avx2 = __builtin_cpu_supports("avx2") ? 1 : 0;
    use_avx2.store(avx2, std::memory_order_relaxed);
  }
  return avx2 ? masks_avx2(p, special, newline) : masks_sse2(p, special, newline);
#else
  return masks_portable(p, special, newline);
#endif
}

}  // namespace faultline
