// The entries a scan sees: one pack, or a stack of packs (bottom first) in
// which an upper pack adds entries, replaces lower ones of the same id and
// turns some off (Pack.base.disables). Scanners, diagnosis and reports speak
// in the library's entry indices: for one pack they are the pack's own, for a
// stack the visible entries sorted by id. Immutable once built; shared freely.
#pragma once

#include <cstdint>

#include "common/alloc.h"
#include "common/status.h"
#include "match/pack_reader.h"

namespace faultline {

class Library {
 public:
  static constexpr uint32_t kNone = 0xffffffffu;
  static constexpr uint32_t kMaxLayers = 16;

  // One pack, read in place: nothing is allocated.
  void init_single(const PackView *pack);
  // A stack of `n` packs (1..kMaxLayers), bottom first; its tables come from
  // `alloc` and are given back by release(). kNoMem or kInvalidArg with `err`.
  Status init_stack(const PackView *const *packs, uint32_t n, const Allocator &alloc, ErrorText *err);
  void release(const Allocator &alloc);

  uint32_t layer_count() const { return layer_count_; }
  const PackView &layer(uint32_t k) const { return *layers_[k]; }
  // The pack whose name and version a report shows first: the top one.
  const PackView &top() const { return *layers_[layer_count_ - 1]; }

  uint32_t entry_count() const { return stacked() ? visible_count_ : layers_[0]->entry_count(); }
  const fb::Entry *entry(uint32_t i) const;
  uint32_t layer_of(uint32_t i) const { return stacked() ? visible_[i].layer : 0; }
  // The entry's library name ("faultline", a site's name), "" when its pack has none.
  const char *origin(uint32_t i) const;
  // The entry stands in place of an entry of the same id in a pack below.
  bool replaces(uint32_t i) const { return stacked() && visible_[i].replaces; }
  // The library index of entry `local` of pack `k`, or kNone when an upper
  // pack replaced it or turned it off: its matches are not the library's.
  uint32_t live_entry(uint32_t k, uint32_t local) const;
  // Index of the entry with this id, or kNone.
  uint32_t find(const char *id) const;

  // Patterns: each pack's in turn, bottom first.
  uint32_t pattern_count() const { return pattern_count_; }
  uint32_t pattern_base(uint32_t k) const { return pattern_base_[k]; }
  const fb::Pattern *pattern(uint32_t global) const;
  uint32_t max_slot_count() const { return max_slot_count_; }

  // Entry x lists entry y among the failures it causes.
  bool causes(uint32_t x, uint32_t y) const;
  // The entries x names as related or as caused, as library indices; entries
  // not in the library (turned off, or missing from the packs below) are left out.
  template <class F>
  void for_each_related(uint32_t x, F f) const {
    for_each_link(x, false, f);
  }
  template <class F>
  void for_each_cause(uint32_t x, F f) const {
    for_each_link(x, true, f);
  }

 private:
  struct Visible {
    uint32_t local;
    uint16_t layer;
    bool replaces;
  };
  const PackView *layers_[kMaxLayers] = {};
  uint32_t layer_count_ = 0;
  uint32_t pattern_base_[kMaxLayers] = {};
  uint32_t entry_base_[kMaxLayers] = {};  // into mapped_
  uint32_t pattern_count_ = 0;
  uint32_t max_slot_count_ = 0;
  // Stack only.
  Visible *visible_ = nullptr;  // sorted by id
  uint32_t visible_count_ = 0;
  // Per pack entry (entry_base_[k] + local): the visible entry of its id (the
  // one replacing it, when replaced), kNone when turned off.
  uint32_t *mapped_ = nullptr;

  bool stacked() const { return visible_ != nullptr; }
  uint32_t map(uint32_t k, uint32_t local) const;

  template <class F>
  void for_each_link(uint32_t x, bool causes, F f) const {
    const fb::Entry *e = entry(x);
    const uint32_t k = layer_of(x);
    if (const auto *v = causes ? e->causes() : e->related())
      for (uint32_t r : *v) {
        const uint32_t g = map(k, r);
        if (g != kNone) f(g);
      }
    if (!stacked()) return;
    if (const auto *v = causes ? e->external_causes() : e->external_related())
      for (const auto *id : *v) {
        const uint32_t g = find(id->c_str());
        if (g != kNone) f(g);
      }
  }
};

}  // namespace faultline
