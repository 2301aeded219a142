// Pack mutations, structure-aware. The seed is a real pack (compiled from
// tests/data/small-signatures); the custom mutator walks its FlatBuffers
// tables with the generated schema and changes what the format gives meaning
// to: vtable entries, table fields, the soffsets to vtables, vector and
// string lengths, vector elements (DFA transitions, class maps, programs,
// literal filter slots...). Then it rewrites the header's length and content
// hash, so that the verifier and our index checks, not the hash, must refuse
// the change. Now and then it changes a header field instead (without
// repairing it), or lets libFuzzer's own mutator change the content bytes.
// The target itself: the pack is refused, or it opens and works safely.
#include "pack_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz::check_pack_bytes(data, size);
  return 0;
}

#ifdef FAULTLINE_LIBFUZZER
#include <algorithm>
#include <random>

#include "pack_generated.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

namespace {

namespace fb = faultline::fb;

// `count` values of `width` bytes (1, 2, 4 or 8) at offset `at` of the pack.
struct Spot {
  size_t at;
  uint32_t width;
  uint32_t count;
};

struct Walker {
  const uint8_t *pack;  // start of the whole pack (header included)
  std::vector<Spot> spots;

  void add(const void *p, uint32_t width, uint32_t count = 1) {
    if (count) spots.push_back({static_cast<size_t>(static_cast<const uint8_t *>(p) - pack), width, count});
  }
  // The soffset to the vtable, the vtable (its size, the table size, the
  // field offsets) and each present field; a field's width is guessed from
  // the gap to the next field (the schema's scalars are 1 to 8 bytes).
  // (Generated tables derive privately from flatbuffers::Table, at the same address.)
  void table(const void *p) {
    if (!p) return;
    const auto *t = static_cast<const flatbuffers::Table *>(p);
    const uint8_t *tp = static_cast<const uint8_t *>(p);
    const uint8_t *vt = t->GetVTable();
    const uint16_t vsize = flatbuffers::ReadScalar<uint16_t>(vt), tsize = flatbuffers::ReadScalar<uint16_t>(vt + 2);
    add(tp, 4);
    add(vt, 2, vsize / 2);
    std::vector<uint16_t> fields;
    for (uint16_t f = 4; f + 2 <= vsize; f += 2)
      if (uint16_t o = flatbuffers::ReadScalar<uint16_t>(vt + f)) fields.push_back(o);
    std::sort(fields.begin(), fields.end());
    for (size_t i = 0; i < fields.size(); i++) {
      uint32_t gap = (i + 1 < fields.size() ? fields[i + 1] : tsize) - fields[i];
      uint32_t w = gap >= 8 ? 8 : gap >= 4 ? 4 : gap >= 2 ? 2 : 1;
      add(tp + fields[i], w);
    }
  }
  // A vector (or string): its length, and its elements as values of up to 4 bytes.
  void vec(const void *v, uint32_t size, uint32_t elem_bytes) {
    if (!v) return;
    add(v, 4);
    uint32_t w = elem_bytes >= 4 ? 4 : elem_bytes;
    add(static_cast<const uint8_t *>(v) + 4, w, static_cast<uint32_t>(uint64_t{size} * elem_bytes / w));
  }
  template <typename T>
  void scalars(const flatbuffers::Vector<T> *v) {
    if (v) vec(v, v->size(), sizeof(T));
  }
  template <typename T>
  void structs(const flatbuffers::Vector<const T *> *v) {
    if (v) vec(v, v->size(), sizeof(T));
  }
  void str(const flatbuffers::String *s) {
    if (s) vec(s, s->size(), 1);
  }
  // A vector of tables or strings: its offsets, then `each` element.
  template <typename T, typename F>
  void tables(const flatbuffers::Vector<flatbuffers::Offset<T>> *v, F &&each) {
    if (!v) return;
    vec(v, v->size(), 4);
    for (const T *x : *v) each(x);
  }
  void strings(const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>> *v) {
    tables(v, [&](const flatbuffers::String *s) { str(s); });
  }
  void key(const fb::LiteralKey *k) {
    table(k);
    scalars(k->text());
    scalars(k->dfas());
  }

  void walk(const fb::Pack *p) {
    table(p);
    str(p->pack_version());
    str(p->compiler_version());
    tables(p->entries(), [&](const fb::Entry *e) {
      table(e);
      for (auto *s : {e->id(), e->title(), e->category(), e->type(), e->summary(), e->mechanism(), e->root_cause(),
                      e->fingerprint(), e->source_path()})
        str(s);
      for (auto *l : {e->tags(), e->affects(), e->confirm(), e->fix_steps(), e->prevention()}) strings(l);
      tables(e->versions(), [&](const fb::VersionScope *x) { table(x); });
      tables(e->symptoms(), [&](const fb::Symptom *x) { table(x); });
      tables(e->fix_commands(), [&](const fb::Command *x) { table(x); });
      tables(e->verify(), [&](const fb::Verification *x) { table(x); });
      tables(e->references(), [&](const fb::Reference *x) { table(x); });
      scalars(e->related());
      scalars(e->causes());
    });
    tables(p->patterns(), [&](const fb::Pattern *x) {
      table(x);
      str(x->name());
      str(x->regex());
      strings(x->capture_names());
      scalars(x->program());
      scalars(x->classes());
    });
    structs(p->pieces());
    tables(p->dfas(), [&](const fb::Dfa *d) {
      table(d);
      scalars(d->class_map());
      scalars(d->trans8());
      scalars(d->trans16());
      scalars(d->trans32());
      scalars(d->accept_offsets());
      scalars(d->accepts());
    });
    tables(p->framing(), [&](const fb::Framing *f) { table(f); });
    if (const fb::LiteralFilter *lf = p->literal_filter()) {
      table(lf);
      tables(lf->long_keys(), [&](const fb::LiteralKey *k) { key(k); });
      tables(lf->short_keys(), [&](const fb::LiteralKey *k) { key(k); });
      scalars(lf->bits());
      structs(lf->slots());
      structs(lf->refs());
      scalars(lf->bucket_first());
      scalars(lf->masks());
      scalars(lf->framing_dfas());
      scalars(lf->long_text());
    }
  }
};

uint64_t load(const uint8_t *p, uint32_t w) {
  uint64_t v = 0;
  std::memcpy(&v, p, w);  // little-endian host (the pack format's byte order)
  return v;
}

void store(uint8_t *p, uint32_t w, uint64_t v) { std::memcpy(p, &v, w); }

// A new value for a field: boundaries, off-by-one, bit flips, random, the
// pack's size, or the value of another field of the same width.
uint64_t new_value(uint64_t old, uint32_t w, size_t pack_size, std::mt19937_64 &rng, uint64_t other) {
  const uint32_t bits = 8 * w;
  switch (rng() % 10) {
    case 0:
      return 0;
    case 1:
      return old + 1;
    case 2:
      return old - 1;
    case 3:
      return ~uint64_t{0};
    case 4:
      return uint64_t{1} << (bits - 1);
    case 5:
      return old ^ (uint64_t{1} << (rng() % bits));
    case 6:
      return rng();
    case 7:
      return rng() % 256;
    case 8:
      return rng() % 2 ? pack_size : old * 2;
    default:
      return other;
  }
}

// Header fields (offset, width), PACK_FORMAT.md section 2.
constexpr Spot kHeader[] = {{4, 2, 1},  {6, 2, 1},  {8, 4, 1},  {12, 4, 1}, {16, 8, 1},
                            {24, 8, 1}, {32, 4, 1}, {36, 4, 1}, {40, 4, 1}, {44, 1, 20}};

}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
  if (size < 72 || std::memcmp(data, "FLPK", 4) != 0) return LLVMFuzzerMutate(data, size, max_size);
  std::mt19937_64 rng(seed);

  if (rng() % 16 == 0) {  // a header field, left unrepaired: the header checks must catch it
    const Spot &s = kHeader[rng() % std::size(kHeader)];
    uint8_t *p = data + s.at + s.width * (rng() % s.count);
    store(p, s.width, new_value(load(p, s.width), s.width, size, rng, rng()));
    return size;
  }

  fuzz::Aligned copy(data, size);
  const uint8_t *content = copy.data() + 64;
  Walker walker{copy.data(), {}};
  flatbuffers::Verifier verifier(content, size - 64, 16, 1u << 22);
  if (fb::PackBufferHasIdentifier(content) && fb::VerifyPackBuffer(verifier)) walker.walk(fb::GetPack(content));

  if (walker.spots.empty() || rng() % 4 == 0) {
    // libFuzzer's byte-level mutations of the content (it may change the size).
    size = 64 + LLVMFuzzerMutate(data + 64, size - 64, max_size - 64);
  } else {
    for (int k = 1 + static_cast<int>(rng() % 3); k > 0; k--) {
      const Spot &s = walker.spots[rng() % walker.spots.size()];
      uint8_t *p = data + s.at + s.width * (rng() % s.count);
      const Spot &o = walker.spots[rng() % walker.spots.size()];
      uint64_t other = load(data + o.at, std::min(o.width, s.width));
      store(p, s.width, new_value(load(p, s.width), s.width, size, rng, other));
    }
  }
  const uint64_t total = size;
  std::memcpy(data + 16, &total, 8);
  fuzz::rehash_pack(data, size);
  return size;
}
#endif  // FAULTLINE_LIBFUZZER
