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

// The whole loop in one function: no call, no dispatch per block. A block's
// CR and ESC are only tested for (one vptest), never located.
__attribute__((target("avx2,popcnt"))) const uint8_t *plain_blocks_avx2(const uint8_t *q, const uint8_t *end,
                                                                        size_t max_line_bytes, PlainBlocks *out) {
  const __m256i nl = _mm256_set1_epi8('\n'), cr = _mm256_set1_epi8('\r'), esc = _mm256_set1_epi8(0x1b);
  const uint8_t *line = out->line;
  uint64_t newlines = 0, cut = 0;
  for (; end - q >= 64; q += 64) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(q));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(q + 32));
    const __m256i other = _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(a, cr), _mm256_cmpeq_epi8(a, esc)),
                                          _mm256_or_si256(_mm256_cmpeq_epi8(b, cr), _mm256_cmpeq_epi8(b, esc)));
    if (!_mm256_testz_si256(other, other)) break;
    const uint64_t m = static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, nl))) |
                       static_cast<uint64_t>(static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(b, nl)))) << 32;
    if (!m) continue;
    if (static_cast<size_t>(q + __builtin_ctzll(m) - line) > max_line_bytes) cut++;
    newlines += static_cast<uint64_t>(__builtin_popcountll(m));
    line = q + 64 - __builtin_clzll(m);
  }
  out->line = line;
  out->newlines += newlines;
  out->cut_lines += cut;
  return q;
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

#ifdef FL_LINE_BREAKS_X86
namespace {

bool avx2() {
  int avx2 = use_avx2.load(std::memory_order_relaxed);
  if (avx2 < 0) {
    __builtin_cpu_init();
    avx2 = __builtin_cpu_supports("avx2") ? 1 : 0;
    use_avx2.store(avx2, std::memory_order_relaxed);
  }
  return avx2;
}

}  // namespace
#endif

uint32_t line_masks64(const uint8_t *p, uint64_t *special, uint64_t *newline) {
#ifdef FL_LINE_BREAKS_X86
  return avx2() ? masks_avx2(p, special, newline) : masks_sse2(p, special, newline);
#else
  return masks_portable(p, special, newline);
#endif
}

const uint8_t *line_skip_plain_blocks(const uint8_t *q, const uint8_t *end, size_t max_line_bytes, PlainBlocks *out) {
#ifdef FL_LINE_BREAKS_X86
  if (avx2()) return plain_blocks_avx2(q, end, max_line_bytes, out);
#endif
  for (; end - q >= 64; q += 64) {
    uint64_t special = 0, m = 0;
    const uint32_t n = line_masks64(q, &special, &m);
    if (special != m) break;
    if (!m) continue;
    if (static_cast<size_t>(q + __builtin_ctzll(m) - out->line) > max_line_bytes) out->cut_lines++;
    out->newlines += n;
    out->line = q + 64 - __builtin_clzll(m);
  }
  return q;
}

}  // namespace faultline
