#include "match/literal_filter.h"

#include <atomic>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define FL_LITERAL_X86 1
#endif

namespace faultline {

namespace {

inline uint64_t load64(const uint8_t *p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// ASCII lower case of 8 bytes at once: 0x20 added to each byte in 'A'..'Z'.
inline uint64_t lower64(uint64_t v) {
  const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
  const uint64_t ge_a = (v | high) - ones * 'A';        // high bit set where byte >= 'A' (for bytes < 0x80)
  const uint64_t gt_z = (v | high) - ones * ('Z' + 1);  // high bit set where byte > 'Z'
  const uint64_t upper = ge_a & ~gt_z & ~v & high;      // 'A'..'Z', ASCII only
  return v | (upper >> 2);
}

// `n` bytes of a key at `start` (which must leave room for all of them),
// compared 8 bytes at a time: most candidates differ early.
bool bytes_equal(const uint8_t *start, const uint8_t *k, uint32_t n, bool fold) {
  uint32_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const uint64_t t = load64(start + i);
    if ((fold ? lower64(t) : t) != load64(k + i)) return false;
  }
  for (; i < n; i++)
    if ((fold ? literal_lower(start[i]) : start[i]) != k[i]) return false;
  return true;
}

bool key_equal(const fb::LiteralKey *key, const uint8_t *start) {
  return bytes_equal(start, key->text()->data(), key->text()->size(), key->caseless());
}

// A key whose `anchor` byte stands at `at`, if it lies wholly in [begin, end).
bool key_at(const fb::LiteralKey *key, const uint8_t *at, const uint8_t *begin, const uint8_t *end) {
  const size_t anchor = key->anchor(), len = key->text()->size();
  if (static_cast<size_t>(at - begin) < anchor || static_cast<size_t>(end - (at - anchor)) < len) return false;
  return key_equal(key, at - anchor);
}

// The gram at q is in the set: look it up and verify each key window it
// belongs to. `sink(start, key)` gets each verified key and returns true to
// stop the search; the start it stopped at is returned.
template <typename Sink>
const uint8_t *verify_long(const LiteralFilterView &f, const uint8_t *q, const uint8_t *begin, const uint8_t *end, Sink &sink) {
  const uint32_t gram = literal_load_gram(q), mask = (1u << f.slot_log2) - 1;
  uint32_t s = literal_slot(gram, f.slot_log2);
  for (uint32_t tries = 0; tries <= mask && f.slots[s].count(); tries++, s = (s + 1) & mask) {
    const fb::LiteralSlot &slot = f.slots[s];
    if (slot.gram() != gram) continue;
    for (uint32_t r = slot.first(); r < slot.first() + slot.count(); r++) {
      const fb::LiteralRef &ref = f.refs[r];
      if (static_cast<size_t>(q - begin) < ref.back()) continue;
      const uint8_t *start = q - ref.back();
      if (static_cast<size_t>(end - start) < ref.length()) continue;
      if (!bytes_equal(start, f.long_text + ref.text(), ref.length(), ref.caseless())) continue;
      if (sink(start, f.long_keys->Get(ref.key()))) return start;
    }
    return nullptr;
  }
  return nullptr;
}

inline bool bit_set(const uint8_t *bits, uint32_t gram) {
  const uint32_t b = literal_bit(gram);
  return (bits[b >> 3] >> (b & 7)) & 1u;
}

// Keys of the buckets in `buckets` whose fingerprint starts at `at`.
template <typename Sink>
const uint8_t *verify_short(const LiteralFilterView &f, uint32_t buckets, const uint8_t *at, const uint8_t *begin,
                            const uint8_t *end, Sink &sink) {
  for (; buckets; buckets &= buckets - 1) {
    const uint32_t b = static_cast<uint32_t>(__builtin_ctz(buckets));
    for (uint32_t k = f.bucket_first[b]; k < f.bucket_first[b + 1]; k++) {
      const fb::LiteralKey *key = f.short_keys->Get(k);
      if (key_at(key, at, begin, end) && sink(at - key->anchor(), key)) return at - key->anchor();
    }
  }
  return nullptr;
}

inline uint32_t buckets_at(const uint8_t *masks, const uint8_t *p) {
  uint32_t acc = 0xff;
  for (int j = 0; j < 4; j++) acc &= masks[32 * j + (p[j] & 15)] & masks[32 * j + 16 + (p[j] >> 4)];
  return acc;
}

template <typename Sink>
const uint8_t *short_portable(const LiteralFilterView &f, const uint8_t *from, const uint8_t *begin, const uint8_t *end,
                              Sink &sink) {
  for (const uint8_t *p = from; end - p >= 4; p++)
    if (uint32_t b = buckets_at(f.masks, p))
      if (const uint8_t *hit = verify_short(f, b, p, begin, end, sink)) return hit;
  return nullptr;
}

#ifdef FL_LITERAL_X86
// Ascii: no fingerprint byte is >= 0x80, so the low nibble needs no mask:
// pshufb reads bits 0-3 of an ASCII byte and gives 0 for a byte >= 0x80,
// which then matches no bucket, as it should.
template <typename Sink, bool Ascii>
__attribute__((target("avx2"))) const uint8_t *short_avx2(const LiteralFilterView &f, const uint8_t *begin, const uint8_t *end,
                                                          Sink &sink) {
  const __m256i nibble = _mm256_set1_epi8(0x0f), zero = _mm256_setzero_si256();
  __m256i lo[4], hi[4];
  for (int j = 0; j < 4; j++) {
    lo[j] = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i *>(f.masks + 32 * j)));
    hi[j] = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i *>(f.masks + 32 * j + 16)));
  }
  const uint8_t *p = begin;
  for (; end - p >= 32 + 3; p += 32) {
    __m256i acc = _mm256_set1_epi8(-1);
    for (int j = 0; j < 4; j++) {
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + j));
      const __m256i l = _mm256_shuffle_epi8(lo[j], Ascii ? v : _mm256_and_si256(v, nibble));
      const __m256i h = _mm256_shuffle_epi8(hi[j], _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble));
      acc = _mm256_and_si256(acc, _mm256_and_si256(l, h));
    }
    uint32_t m = ~static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(acc, zero)));
    if (!m) continue;
    alignas(32) uint8_t lanes[32];
    _mm256_store_si256(reinterpret_cast<__m256i *>(lanes), acc);
    for (; m; m &= m - 1) {
      const uint32_t i = static_cast<uint32_t>(__builtin_ctz(m));
      if (const uint8_t *hit = verify_short(f, lanes[i], p + i, begin, end, sink)) return hit;
    }
  }
  return short_portable(f, p, begin, end, sink);
}

template <typename Sink, bool Ascii>
__attribute__((target("ssse3"))) const uint8_t *short_ssse3(const LiteralFilterView &f, const uint8_t *begin, const uint8_t *end,
                                                            Sink &sink) {
  const __m128i nibble = _mm_set1_epi8(0x0f), zero = _mm_setzero_si128();
  __m128i lo[4], hi[4];
  for (int j = 0; j < 4; j++) {
    lo[j] = _mm_loadu_si128(reinterpret_cast<const __m128i *>(f.masks + 32 * j));
    hi[j] = _mm_loadu_si128(reinterpret_cast<const __m128i *>(f.masks + 32 * j + 16));
  }
  const uint8_t *p = begin;
  for (; end - p >= 16 + 3; p += 16) {
    __m128i acc = _mm_set1_epi8(-1);
    for (int j = 0; j < 4; j++) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + j));
      const __m128i l = _mm_shuffle_epi8(lo[j], Ascii ? v : _mm_and_si128(v, nibble));
      const __m128i h = _mm_shuffle_epi8(hi[j], _mm_and_si128(_mm_srli_epi16(v, 4), nibble));
      acc = _mm_and_si128(acc, _mm_and_si128(l, h));
    }
    uint32_t m = ~static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(acc, zero))) & 0xffffu;
    if (!m) continue;
    alignas(16) uint8_t lanes[16];
    _mm_store_si128(reinterpret_cast<__m128i *>(lanes), acc);
    for (; m; m &= m - 1) {
      const uint32_t i = static_cast<uint32_t>(__builtin_ctz(m));
      if (const uint8_t *hit = verify_short(f, lanes[i], p + i, begin, end, sink)) return hit;
    }
  }
  return short_portable(f, p, begin, end, sink);
}
#endif

enum class Kernel { kPortable, kSsse3, kAvx2 };

Kernel pick_kernel() {
#ifdef FL_LITERAL_X86
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2")) return Kernel::kAvx2;
  if (__builtin_cpu_supports("ssse3")) return Kernel::kSsse3;
#endif
  return Kernel::kPortable;
}

// Decided on first use. Threads racing here all store the same value; an
// atomic (not a function-local static) keeps libstdc++'s guards out of libcore.
std::atomic<int> chosen_kernel{-1};

Kernel kernel() {
  int k = chosen_kernel.load(std::memory_order_relaxed);
  if (k < 0) {
    k = static_cast<int>(pick_kernel());
    chosen_kernel.store(k, std::memory_order_relaxed);
  }
  return static_cast<Kernel>(k);
}

}  // namespace

void literal_filter_view(const fb::LiteralFilter *f, LiteralFilterView *out) {
  *out = LiteralFilterView{};
  if (!f || !f->complete()) return;
  out->usable = true;
  out->stride = f->stride();
  out->long_keys = f->long_keys();
  out->bits = f->bits()->data();
  out->slots = reinterpret_cast<const fb::LiteralSlot *>(f->slots()->Data());
  out->slot_log2 = static_cast<uint32_t>(__builtin_ctz(f->slots()->size()));
  out->refs = reinterpret_cast<const fb::LiteralRef *>(f->refs()->Data());
  out->framing_dfas = f->framing_dfas();
  out->long_text = f->long_text() ? f->long_text()->data() : nullptr;
  if (f->short_keys() && f->short_keys()->size()) {
    out->short_keys = f->short_keys();
    out->bucket_first = f->bucket_first()->data();
    out->masks = f->masks()->data();
    out->short_ascii = true;  // no bucket holds a high nibble of 8 or more
    for (uint32_t j = 0; j < 4; j++)
      for (uint32_t h = 8; h < 16; h++) out->short_ascii = out->short_ascii && out->masks[32 * j + 16 + h] == 0;
  }
}

namespace {

template <typename Sink>
const uint8_t *long_portable(const LiteralFilterView &f, const uint8_t *from, const uint8_t *begin, const uint8_t *end,
                             Sink &sink) {
  const size_t stride = f.stride;
  const uint8_t *q = from;
  // Four probes per step, one branch for all of them: most steps find none.
  for (; end - q >= static_cast<ptrdiff_t>(3 * stride + 4); q += 4 * stride) {
    const bool b0 = bit_set(f.bits, literal_load_gram(q));
    const bool b1 = bit_set(f.bits, literal_load_gram(q + stride));
    const bool b2 = bit_set(f.bits, literal_load_gram(q + 2 * stride));
    const bool b3 = bit_set(f.bits, literal_load_gram(q + 3 * stride));
    if (!(b0 | b1 | b2 | b3)) continue;
    for (size_t k = 0; k < 4; k++) {
      const uint8_t *p = q + k * stride;
      if (bit_set(f.bits, literal_load_gram(p)))
        if (const uint8_t *hit = verify_long(f, p, begin, end, sink)) return hit;
    }
  }
  for (; end - q >= 4; q += stride)
    if (bit_set(f.bits, literal_load_gram(q)))
      if (const uint8_t *hit = verify_long(f, q, begin, end, sink)) return hit;
  return nullptr;
}

#ifdef FL_LITERAL_X86
// Eight probes per step: their grams loaded at once (one load when the
// stride is 4, a gather otherwise), hashed with one multiply, and their bits
// fetched with one gather of the bit set's 32-bit words. The same probes as
// long_portable, in the same order.
template <typename Sink>
__attribute__((target("avx2"))) const uint8_t *long_avx2(const LiteralFilterView &f, const uint8_t *begin, const uint8_t *end,
                                                         Sink &sink) {
  const int stride = static_cast<int>(f.stride);
  const __m256i offsets = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(stride));
  const __m256i golden = _mm256_set1_epi32(static_cast<int>(0x9E3779B1u)), low5 = _mm256_set1_epi32(31);
  const int *words = reinterpret_cast<const int *>(f.bits);
  const ptrdiff_t span = 7 * stride + 4;  // bytes the eight grams read
  const uint8_t *q = begin;
  for (; end - q >= span; q += 8 * stride) {
    const __m256i grams = stride == 4 ? _mm256_loadu_si256(reinterpret_cast<const __m256i *>(q))
                                      : _mm256_i32gather_epi32(reinterpret_cast<const int *>(q), offsets, 1);
    // literal_bit(): (gram * 0x9E3779B1) >> (32 - kLiteralBitsLog2).
    const __m256i bit = _mm256_srli_epi32(_mm256_mullo_epi32(grams, golden), 32 - kLiteralBitsLog2);
    const __m256i word = _mm256_i32gather_epi32(words, _mm256_srli_epi32(bit, 5), 4);
    const __m256i set = _mm256_slli_epi32(_mm256_srlv_epi32(word, _mm256_and_si256(bit, low5)), 31);
    uint32_t m = static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(set)));
    for (; m; m &= m - 1) {
      const uint8_t *p = q + static_cast<ptrdiff_t>(__builtin_ctz(m)) * stride;
      if (const uint8_t *hit = verify_long(f, p, begin, end, sink)) return hit;
    }
  }
  return long_portable(f, q, begin, end, sink);
}
#endif

template <typename Sink>
const uint8_t *long_scan(const LiteralFilterView &f, const uint8_t *begin, const uint8_t *end, Sink &sink) {
#ifdef FL_LITERAL_X86
  if (kernel() == Kernel::kAvx2) return long_avx2(f, begin, end, sink);
#endif
  return long_portable(f, begin, begin, end, sink);
}

template <typename Sink>
const uint8_t *short_scan(const LiteralFilterView &f, const uint8_t *begin, const uint8_t *end, Sink &sink) {
  if (!f.short_keys) return nullptr;
  switch (kernel()) {
#ifdef FL_LITERAL_X86
    case Kernel::kAvx2:
      return f.short_ascii ? short_avx2<Sink, true>(f, begin, end, sink) : short_avx2<Sink, false>(f, begin, end, sink);
    case Kernel::kSsse3:
      return f.short_ascii ? short_ssse3<Sink, true>(f, begin, end, sink) : short_ssse3<Sink, false>(f, begin, end, sink);
#endif
    default:
      return short_portable(f, begin, begin, end, sink);
  }
}

struct FirstKey {
  bool operator()(const uint8_t *, const fb::LiteralKey *) const { return true; }
};

struct EachKey {
  void (*fn)(void *, const fb::LiteralKey *);
  void *ctx;
  bool operator()(const uint8_t *, const fb::LiteralKey *key) const {
    fn(ctx, key);
    return false;
  }
};

}  // namespace

const uint8_t *literal_find_long(const LiteralFilterView &f, const uint8_t *begin, const uint8_t *end) {
  FirstKey sink;
  return long_scan(f, begin, end, sink);
}

const uint8_t *literal_find_short(const LiteralFilterView &f, const uint8_t *begin, const uint8_t *end) {
  FirstKey sink;
  return short_scan(f, begin, end, sink);
}

void literal_each_key(const LiteralFilterView &f, const uint8_t *begin, const uint8_t *end,
                      void (*fn)(void *, const fb::LiteralKey *), void *ctx) {
  EachKey sink{fn, ctx};
  long_scan(f, begin, end, sink);
  short_scan(f, begin, end, sink);
}

const char *literal_short_kernel() {
  switch (kernel()) {
    case Kernel::kAvx2:
      return "avx2";
    case Kernel::kSsse3:
      return "ssse3";
    default:
      return "portable";
  }
}

}  // namespace faultline
