#include "match/pack_reader.h"

#include <cstring>

#include "common/hash.h"
#include "common/limits.h"
#include "common/vocabulary.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include "match/literal_filter.h"

namespace faultline {
namespace {

template <typename T>
uint32_t vsize(const flatbuffers::Vector<T> *v) {
  return v ? v->size() : 0;
}

Status corrupt(ErrorText *err, const char *what, uint32_t index) {
  err->set("pack is corrupt: %s (at index %u)", what, index);
  return Status::kPackCorrupt;
}

Status check_entries(const fb::Pack *pack, ErrorText *err) {
  const uint32_t n = vsize(pack->entries()), patterns = vsize(pack->patterns());
  for (uint32_t i = 0; i < n; i++) {
    const fb::Entry *e = pack->entries()->Get(i);
    // Enum values are not checked by the verifier; a report would index
    // name tables with them.
    if (static_cast<unsigned>(e->severity()) > static_cast<unsigned>(fb::Severity::MAX))
      return corrupt(err, "entry severity out of range", i);
    if (static_cast<unsigned>(e->role()) > static_cast<unsigned>(fb::Role::MAX))
      return corrupt(err, "entry role out of range", i);
    if (static_cast<unsigned>(e->action()) > static_cast<unsigned>(fb::Action::MAX))
      return corrupt(err, "entry action out of range", i);
    const fb::Condition *c = e->condition();
    if (!c || c->min_count() == 0) return corrupt(err, "entry condition missing or zero count", i);
    if (static_cast<unsigned>(c->require()) > static_cast<unsigned>(fb::Require::MAX) ||
        static_cast<unsigned>(c->scope()) > static_cast<unsigned>(fb::Scope::MAX))
      return corrupt(err, "entry condition out of range", i);
    if (e->first_pattern() > patterns || e->pattern_count() > patterns - e->first_pattern())
      return corrupt(err, "entry pattern range outside the pattern table", i);
    if (e->related())
      for (uint32_t r : *e->related())
        if (r >= n) return corrupt(err, "related entry index out of range", i);
    if (e->causes())
      for (uint32_t r : *e->causes())
        if (r >= n) return corrupt(err, "causal edge to a missing entry", i);
  }
  return Status::kOk;
}

// Everything the filter's search reads, bounded: key lengths against their
// anchors, table sizes, every index. A filter that is not complete is never
// searched, but is still checked.
Status check_literal_keys(const LiteralKeys *keys, uint32_t min_len, uint32_t anchor_room, uint32_t dfas, const char *what,
                          ErrorText *err) {
  for (uint32_t i = 0; keys && i < keys->size(); i++) {
    const fb::LiteralKey *k = keys->Get(i);
    const uint32_t n = vsize(k->text());
    if (n < min_len || n > 4096 || k->anchor() > n - anchor_room) return corrupt(err, what, i);
    if (k->dfas())
      for (uint32_t d : *k->dfas())
        if (d >= dfas) return corrupt(err, "literal filter key names a missing DFA", i);
  }
  return Status::kOk;
}

Status check_literal_filter(const fb::LiteralFilter *f, uint32_t dfas, ErrorText *err) {
  if (!f) return Status::kOk;
  if (f->framing_dfas())
    for (uint32_t d : *f->framing_dfas())
      if (d >= dfas) return corrupt(err, "literal filter framing DFA out of range", d);
  const uint32_t stride = f->stride(), slots = vsize(f->slots());
  if (stride < 1 || stride > kLiteralMaxStride) return corrupt(err, "literal filter stride out of range", stride);
  if (vsize(f->bits()) != kLiteralBitsBytes) return corrupt(err, "literal filter bit set has the wrong size", vsize(f->bits()));
  if (slots < 2 || (slots & (slots - 1))) return corrupt(err, "literal filter hash table has the wrong shape", slots);
  Status st =
      check_literal_keys(f->long_keys(), stride + 3, stride + 3, dfas, "literal filter long key shorter than its window", err);
  if (st != Status::kOk) return st;
  st = check_literal_keys(f->short_keys(), 4, 4, dfas, "literal filter short key shorter than its fingerprint", err);
  if (st != Status::kOk) return st;
  const uint32_t refs = vsize(f->refs()), long_keys = vsize(f->long_keys()), short_keys = vsize(f->short_keys());
  bool empty_slot = false;
  for (uint32_t i = 0; i < slots; i++) {
    const uint32_t first = f->slots()->Get(i)->first(), count = f->slots()->Get(i)->count();
    empty_slot = empty_slot || count == 0;
    if (first > refs || count > refs - first) return corrupt(err, "literal filter slot outside the reference list", i);
  }
  if (!empty_slot) return corrupt(err, "literal filter hash table has no empty slot", slots);
  const uint32_t text = vsize(f->long_text());
  for (uint32_t i = 0; i < refs; i++) {
    const fb::LiteralRef *r = f->refs()->Get(i);
    if (r->key() >= long_keys || r->offset() >= stride || r->text() > text || r->length() > text - r->text() || r->length() < 4)
      return corrupt(err, "literal filter reference out of range", i);
  }
  if (short_keys) {
    if (vsize(f->masks()) != kLiteralMaskBytes || vsize(f->bucket_first()) != kLiteralBuckets + 1)
      return corrupt(err, "literal filter bucket tables have the wrong size", short_keys);
    for (uint32_t b = 0; b <= kLiteralBuckets; b++) {
      const uint32_t first = f->bucket_first()->Get(b);
      if (first > short_keys || (b > 0 && first < f->bucket_first()->Get(b - 1)))
        return corrupt(err, "literal filter bucket range out of order", b);
    }
  }
  return Status::kOk;
}

Status check_patterns(const fb::Pack *pack, ErrorText *err) {
  const uint32_t n = vsize(pack->patterns()), entries = vsize(pack->entries());
  for (uint32_t i = 0; i < n; i++) {
    const fb::Pattern *p = pack->patterns()->Get(i);
    if (p->entry() == kFramingEntry) {
      // Checked from the framing side: it must lie in a framing's range.
      bool owned = false;
      for (uint32_t f = 0; pack->framing() && f < pack->framing()->size(); f++) {
        const fb::Framing *fr = pack->framing()->Get(f);
        owned = owned || (i >= fr->first_pattern() && i - fr->first_pattern() < fr->pattern_count());
      }
      if (!owned) return corrupt(err, "framing pattern outside every framing's range", i);
    } else {
      if (p->entry() >= entries) return corrupt(err, "pattern names a missing entry", i);
      const fb::Entry *e = pack->entries()->Get(p->entry());
      if (i < e->first_pattern() || i - e->first_pattern() >= e->pattern_count())
        return corrupt(err, "pattern is not inside its entry's pattern range", i);
    }
    if (p->piece_count() == 0 || p->piece_count() > kMaxPiecesPerPattern) return corrupt(err, "pattern piece count", i);
    const uint32_t words = vsize(p->program()), class_bytes = vsize(p->classes());
    if (words == 0 || words % 2 != 0) return corrupt(err, "program length", i);
    if (class_bytes % 32 != 0) return corrupt(err, "program class table length", i);
    if (p->slot_count() != 2 * (vsize(p->capture_names()) + 1) || p->slot_count() > pack->max_slot_count())
      return corrupt(err, "program capture slot count", i);
    if (words / 2 > pack->max_program_insns()) return corrupt(err, "program longer than the pack's maximum", i);
    ProgramView pv{p->program()->data(), words / 2,       p->classes() ? p->classes()->data() : nullptr,
                   class_bytes / 32,     p->slot_count(), nullptr};
    if (!program_is_valid(pv)) return corrupt(err, "program has an invalid instruction or target", i);
    if (p->start_bytes() && p->start_bytes()->size() != 32)
      return corrupt(err, "pattern start bytes are not a 32-byte bitmap", i);
  }
  return Status::kOk;
}

Status check_pieces(const fb::Pack *pack, ErrorText *err) {
  const uint32_t n = vsize(pack->pieces()), patterns = vsize(pack->patterns());
  for (uint32_t i = 0; i < n; i++) {
    const fb::Piece *pc = pack->pieces()->Get(i);
    if (pc->pattern() >= patterns) return corrupt(err, "piece names a missing pattern", i);
    if (pc->bit() >= pack->patterns()->Get(pc->pattern())->piece_count()) return corrupt(err, "piece bit out of range", i);
  }
  return Status::kOk;
}

// True when every one of n transition targets is below `states`: the
// tables are most of a pack, and every open checks all of them (SSE2 for the
// 8- and 16-bit tables, which is what flc writes for all but huge DFAs).
template <typename T>
bool all_below(const T *p, size_t n, uint32_t states) {
  size_t i = 0;
#if defined(__SSE2__)
  if constexpr (sizeof(T) <= 2) {
    const uint32_t cap = sizeof(T) == 1 ? 0xffu : 0xffffu;  // a limit the type can hold
    const T limit = static_cast<T>(states - 1 > cap ? cap : states - 1);
    const __m128i lim = sizeof(T) == 1 ? _mm_set1_epi8(static_cast<char>(limit)) : _mm_set1_epi16(static_cast<short>(limit));
    __m128i over = _mm_setzero_si128();
    for (; (i + 16 / sizeof(T)) <= n; i += 16 / sizeof(T)) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + i));
      over = _mm_or_si128(over, sizeof(T) == 1 ? _mm_subs_epu8(v, lim) : _mm_subs_epu16(v, lim));  // non-zero where v > limit
    }
    if (_mm_movemask_epi8(_mm_cmpeq_epi8(over, _mm_setzero_si128())) != 0xffff) return false;
  }
#endif
  for (; i < n; i++)
    if (p[i] >= states) return false;
  return true;
}

Status check_dfa(const fb::Dfa *d, uint32_t piece_count, uint32_t i, ErrorText *err) {
  const uint32_t states = d->state_count(), classes = d->class_count();
  if (states == 0 || classes == 0 || classes > 256) return corrupt(err, "DFA state or class count", i);
  if (vsize(d->class_map()) != 256) return corrupt(err, "DFA class map is not 256 entries", i);
  for (uint8_t c : *d->class_map())
    if (c >= classes) return corrupt(err, "DFA class map entry out of range", i);
  const uint64_t cells = static_cast<uint64_t>(states) * classes;
  int present = (d->trans8() != nullptr) + (d->trans16() != nullptr) + (d->trans32() != nullptr);
  if (present != 1) return corrupt(err, "DFA must have exactly one transition table", i);
  uint64_t size = 0;
  bool in_range = false;
  if (d->trans8()) {
    size = d->trans8()->size();
    in_range = all_below(d->trans8()->data(), size, states);
  } else if (d->trans16()) {
    size = d->trans16()->size();
    in_range = all_below(d->trans16()->data(), size, states);
  } else {
    size = d->trans32()->size();
    in_range = all_below(d->trans32()->data(), size, states);
  }
  if (size != cells) return corrupt(err, "DFA transition table size", i);
  if (!in_range) return corrupt(err, "DFA transition to a missing state", i);
  if (d->start() >= states || d->accept_base() > states) return corrupt(err, "DFA start state or accept base", i);
  const uint32_t accepting = states - d->accept_base();
  if (vsize(d->accept_offsets()) != accepting + 1) return corrupt(err, "DFA accept offsets length", i);
  const uint32_t accepts = vsize(d->accepts());
  uint32_t prev = 0;
  for (uint32_t off : *d->accept_offsets()) {
    if (off < prev || off > accepts) return corrupt(err, "DFA accept offsets not ascending within the list", i);
    prev = off;
  }
  if (accepts > 0)
    for (uint32_t a : *d->accepts())
      if (a >= piece_count) return corrupt(err, "DFA accepts a missing piece", i);
  return Status::kOk;
}

}  // namespace

Status read_header(const uint8_t *bytes, size_t size, PackHeader *out, ErrorText *err) {
  if (size < 4 || std::memcmp(bytes, kPackMagic, 4) != 0) {
    err->set("not a faultline pack (no FLPK magic)");
    return Status::kNotAPack;
  }
  if (size < kPackHeaderBytes) {
    err->set("pack is truncated: %zu bytes, the header alone is %u", size, kPackHeaderBytes);
    return Status::kPackCorrupt;
  }
  PackHeader h = read_pack_header(bytes);
  if (h.format_major != kPackFormatMajor) {
    err->set("pack format %u.%u is not readable by this runtime (format %u.%u)", h.format_major, h.format_minor, kPackFormatMajor,
             kPackFormatMinor);
    return Status::kPackVersion;
  }
  if (h.header_bytes < kPackHeaderBytes || h.header_bytes % 8 != 0 || h.header_bytes > size) {
    err->set("pack header size %u is invalid", h.header_bytes);
    return Status::kPackCorrupt;
  }
  bool reserved_zero = true;
  for (uint8_t b : h.reserved) reserved_zero = reserved_zero && b == 0;
  if (h.flags != 0 || !reserved_zero) {
    // Reserved fields carry no meaning this runtime knows: a pack that sets
    // them needs a newer runtime (which would also bump the major).
    err->set(
        "pack header has reserved fields set (flags 0x%08x%s): format %u.x leaves them zero, a pack that needs them has a "
        "new major",
        h.flags, reserved_zero ? "" : ", reserved bytes", kPackFormatMajor);
    return Status::kPackCorrupt;
  }
  if (h.total_bytes != size) {
    err->set("pack length mismatch: header says %llu bytes, got %zu (truncated or padded)",
             static_cast<unsigned long long>(h.total_bytes), size);
    return Status::kPackCorrupt;
  }
  *out = h;
  return Status::kOk;
}

Status open_pack_view(const uint8_t *bytes, size_t size, PackView *out, ErrorText *err) {
  *out = PackView{};
  if (!bytes) {
    err->set("pack bytes are NULL");
    return Status::kInvalidArg;
  }
  if (reinterpret_cast<uintptr_t>(bytes) % 8 != 0) {
    err->set("pack memory must be 8-byte aligned for zero-copy reading");
    return Status::kInvalidArg;
  }
  PackHeader h;
  Status st = read_header(bytes, size, &h, err);
  if (st != Status::kOk) return st;
  const uint8_t *content = bytes + h.header_bytes;
  const size_t content_size = size - h.header_bytes;
  uint64_t hash = xxh64(content, content_size);
  if (hash != h.content_hash) {
    err->set("pack content hash mismatch: header %016llx, content %016llx", static_cast<unsigned long long>(h.content_hash),
             static_cast<unsigned long long>(hash));
    return Status::kPackCorrupt;
  }
  if (!fb::PackBufferHasIdentifier(content)) {
    err->set("pack content lacks the FLPK FlatBuffers identifier");
    return Status::kPackCorrupt;
  }
  flatbuffers::Verifier verifier(content, content_size, kVerifierMaxDepth, kVerifierMaxTables, true);
  if (!fb::VerifyPackBuffer(verifier)) {
    err->set("pack content failed FlatBuffers verification");
    return Status::kPackCorrupt;
  }
  const fb::Pack *root = fb::GetPack(content);
  if (!root->entries() || !root->patterns() || !root->pieces() || !root->dfas()) {
    err->set("pack is corrupt: a required table is missing");
    return Status::kPackCorrupt;
  }
  if (root->max_program_insns() > kMaxProgramInsns || root->max_slot_count() > kMaxSlotCount) {
    err->set("pack is corrupt: program limits out of range");
    return Status::kPackCorrupt;
  }
  if (h.entry_count != root->entries()->size() || h.pattern_count != root->patterns()->size() ||
      h.dfa_count != root->dfas()->size()) {
    err->set("pack is corrupt: header counts disagree with the content");
    return Status::kPackCorrupt;
  }
  if ((st = check_entries(root, err)) != Status::kOk) return st;
  if ((st = check_patterns(root, err)) != Status::kOk) return st;
  if ((st = check_pieces(root, err)) != Status::kOk) return st;
  if ((st = check_literal_filter(root->literal_filter(), root->dfas()->size(), err)) != Status::kOk) return st;
  for (uint32_t i = 0; i < root->dfas()->size(); i++)
    if ((st = check_dfa(root->dfas()->Get(i), root->pieces()->size(), i, err)) != Status::kOk) return st;
  // A confirmation DFA accepts one thing, its own pattern: piece 0.
  for (uint32_t i = 0; i < root->patterns()->size(); i++)
    if (const fb::Dfa *d = root->patterns()->Get(i)->confirm())
      if ((st = check_dfa(d, 1, i, err)) != Status::kOk) return st;
  if (root->framing())
    for (uint32_t i = 0; i < root->framing()->size(); i++) {
      const fb::Framing *fr = root->framing()->Get(i);
      const uint32_t n = root->patterns()->size();
      if (fr->first_pattern() > n || fr->pattern_count() > n - fr->first_pattern())
        return corrupt(err, "framing pattern range outside the pattern table", i);
      for (uint32_t k = fr->first_pattern(); k < fr->first_pattern() + fr->pattern_count(); k++)
        if (root->patterns()->Get(k)->entry() != kFramingEntry) return corrupt(err, "framing range holds an entry's pattern", i);
    }
  out->bytes = bytes;
  out->size = size;
  out->header = h;
  out->root = root;
  literal_filter_view(root->literal_filter(), &out->literals);
  return Status::kOk;
}

namespace {

DfaView dfa_view(const fb::Dfa *d) {
  DfaView v;
  v.state_count = d->state_count();
  v.class_count = d->class_count();
  v.start = d->start();
  v.accept_base = d->accept_base();
  v.class_map = d->class_map()->data();
  if (d->trans8()) {
    v.width = 1;
    v.trans = d->trans8()->data();
  } else if (d->trans16()) {
    v.width = 2;
    v.trans = d->trans16()->data();
  } else {
    v.width = 4;
    v.trans = d->trans32()->data();
  }
  v.accept_offsets = d->accept_offsets()->data();
  v.accepts = d->accepts() ? d->accepts()->data() : nullptr;
  return v;
}

}  // namespace

DfaView PackView::dfa(uint32_t i) const { return dfa_view(root->dfas()->Get(i)); }

bool PackView::confirm_dfa(uint32_t pattern_index, DfaView *out) const {
  const fb::Dfa *d = pattern(pattern_index)->confirm();
  if (!d) return false;
  *out = dfa_view(d);
  return true;
}

ProgramView PackView::program(uint32_t pattern_index) const {
  const fb::Pattern *p = pattern(pattern_index);
  ProgramView v;
  v.insns = p->program()->data();
  v.insn_count = p->program()->size() / 2;
  v.classes = p->classes() ? p->classes()->data() : nullptr;
  v.class_count = p->classes() ? p->classes()->size() / 32 : 0;
  v.slot_count = p->slot_count();
  v.start_bytes = p->start_bytes() ? p->start_bytes()->data() : nullptr;
  return v;
}

bool entry_has_tag(const fb::Entry *e, const char *tag) {
  if (!e->tags()) return false;
  for (const auto *t : *e->tags())
    if (std::strcmp(t->c_str(), tag) == 0) return true;
  return false;
}

bool entry_is_generic(const fb::Entry *e) { return entry_has_tag(e, kTagGeneric); }

bool entry_waits_on_peers(const fb::Entry *e) { return entry_has_tag(e, kTagWaitsOnPeers); }

}  // namespace faultline
