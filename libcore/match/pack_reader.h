// Reading a pack in place: every check that must pass before any other code
// touches the bytes. Pairs with compiler/pack_writer.cpp.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/status.h"
#include "match/dfa.h"
#include "match/literal_filter.h"
#include "match/pack_header.h"
#include "match/program.h"
#include "pack_generated.h"

namespace faultline {

// A verified pack. Borrowed: valid while the bytes it was opened on live.
struct PackView {
  const uint8_t *bytes = nullptr;
  size_t size = 0;
  PackHeader header{};
  const fb::Pack *root = nullptr;
  LiteralFilterView literals;  // usable only when the pack's filter is complete

  uint32_t entry_count() const { return root->entries()->size(); }
  uint32_t pattern_count() const { return root->patterns()->size(); }
  uint32_t dfa_count() const { return root->dfas()->size(); }
  const fb::Entry *entry(uint32_t i) const { return root->entries()->Get(i); }
  const fb::Pattern *pattern(uint32_t i) const { return root->patterns()->Get(i); }
  DfaView dfa(uint32_t i) const;
  // The pattern's whole-pattern DFA (pack format 1.2), when it has one.
  bool confirm_dfa(uint32_t pattern_index, DfaView *out) const;
  ProgramView program(uint32_t pattern_index) const;
};

// Reads only the header: magic, format version and length, in that order.
// Used by pack info queries that must not trust the content.
Status read_header(const uint8_t *bytes, size_t size, PackHeader *out, ErrorText *err);

// Full verification: header, content hash, FlatBuffers verifier with limits,
// then every index the verifier cannot see. `bytes` must be 8-byte aligned.
Status open_pack_view(const uint8_t *bytes, size_t size, PackView *out, ErrorText *err);

// Entries tagged `generic` (an uncaught Python exception, NCCL init lines)
// feed rank attribution and the unknown-failure path instead of naming a
// failure themselves.
bool entry_is_generic(const fb::Entry *e);
bool entry_has_tag(const fb::Entry *e, const char *tag);
// Whether an entry is tagged `waits-on-peers` (see common/vocabulary.h).
bool entry_waits_on_peers(const fb::Entry *e);

}  // namespace faultline
