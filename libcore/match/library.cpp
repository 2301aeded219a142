#include "match/library.h"

#include <algorithm>
#include <cstring>

namespace faultline {

namespace {

const char *id_of(const fb::Entry *e) { return e->id()->c_str(); }

// Whether pack `by` or one above it, up to `top`, turns `id` off for packs below it.
bool turned_off(const PackView *const *packs, uint32_t below, uint32_t count, const char *id) {
  for (uint32_t k = below + 1; k < count; k++) {
    const fb::Base *base = packs[k]->root->base();
    if (!base || !base->disables()) continue;
    for (const auto *d : *base->disables())
      if (std::strcmp(d->c_str(), id) == 0) return true;
  }
  return false;
}

}  // namespace

void Library::init_single(const PackView *pack) {
  layers_[0] = pack;
  layer_count_ = 1;
  pattern_base_[0] = 0;
  entry_base_[0] = 0;
  pattern_count_ = pack->pattern_count();
  max_slot_count_ = pack->root->max_slot_count();
}

Status Library::init_stack(const PackView *const *packs, uint32_t n, const Allocator &alloc, ErrorText *err) {
  if (n == 0 || n > kMaxLayers) {
    err->set("a pack stack holds 1 to %u packs, not %u", kMaxLayers, n);
    return Status::kInvalidArg;
  }
  uint64_t entries = 0, patterns = 0;
  for (uint32_t k = 0; k < n; k++) {
    layers_[k] = packs[k];
    entry_base_[k] = static_cast<uint32_t>(entries);
    pattern_base_[k] = static_cast<uint32_t>(patterns);
    entries += packs[k]->entry_count();
    patterns += packs[k]->pattern_count();
    max_slot_count_ = std::max(max_slot_count_, packs[k]->root->max_slot_count());
  }
  if (entries >= kNone || patterns >= kNone) {
    err->set("the packs of the stack hold too many entries or patterns together");
    return Status::kInvalidArg;
  }
  layer_count_ = n;
  pattern_count_ = static_cast<uint32_t>(patterns);
  const size_t total = static_cast<size_t>(entries);
  // Every (pack, entry) sorted by id, the upper pack first among equal ids:
  // the first of each run of one id is the visible one, unless a pack above
  // it turns the id off.
  auto *order = static_cast<Visible *>(alloc.allocate_zeroed(total ? total : 1, sizeof(Visible)));
  visible_ = static_cast<Visible *>(alloc.allocate_zeroed(total ? total : 1, sizeof(Visible)));
  mapped_ = static_cast<uint32_t *>(alloc.allocate_zeroed(total ? total : 1, sizeof(uint32_t)));
  if (!order || !visible_ || !mapped_) {
    alloc.release(order);
    release(alloc);
    err->set("out of memory");
    return Status::kNoMem;
  }
  size_t m = 0;
  for (uint32_t k = 0; k < n; k++)
    for (uint32_t i = 0; i < packs[k]->entry_count(); i++) order[m++] = Visible{i, static_cast<uint16_t>(k), false};
  std::sort(order, order + m, [&](const Visible &a, const Visible &b) {
    const int c = std::strcmp(id_of(packs[a.layer]->entry(a.local)), id_of(packs[b.layer]->entry(b.local)));
    return c != 0 ? c < 0 : a.layer > b.layer;
  });
  visible_count_ = 0;
  for (size_t i = 0; i < m;) {
    const char *id = id_of(packs[order[i].layer]->entry(order[i].local));
    size_t j = i + 1;
    while (j < m && std::strcmp(id_of(packs[order[j].layer]->entry(order[j].local)), id) == 0) j++;
    uint32_t shown = kNone;
    if (!turned_off(packs, order[i].layer, n, id)) {
      shown = visible_count_++;
      visible_[shown] = order[i];
      visible_[shown].replaces = j > i + 1;
    }
    for (size_t x = i; x < j; x++) mapped_[entry_base_[order[x].layer] + order[x].local] = shown;
    i = j;
  }
  alloc.release(order);
  return Status::kOk;
}

void Library::release(const Allocator &alloc) {
  alloc.release(visible_);
  alloc.release(mapped_);
  visible_ = nullptr;
  mapped_ = nullptr;
  visible_count_ = 0;
}

const fb::Entry *Library::entry(uint32_t i) const {
  if (!stacked()) return layers_[0]->entry(i);
  return layers_[visible_[i].layer]->entry(visible_[i].local);
}

const char *Library::origin(uint32_t i) const {
  const auto *name = layers_[layer_of(i)]->root->library_name();
  return name ? name->c_str() : "";
}

uint32_t Library::map(uint32_t k, uint32_t local) const {
  if (local >= layers_[k]->entry_count()) return kNone;
  return stacked() ? mapped_[entry_base_[k] + local] : local;
}

uint32_t Library::live_entry(uint32_t k, uint32_t local) const {
  const uint32_t g = map(k, local);
  if (g == kNone || !stacked()) return g;
  return visible_[g].layer == k && visible_[g].local == local ? g : kNone;
}

uint32_t Library::find(const char *id) const {
  if (!stacked()) {
    for (uint32_t i = 0; i < layers_[0]->entry_count(); i++)
      if (std::strcmp(id_of(layers_[0]->entry(i)), id) == 0) return i;
    return kNone;
  }
  uint32_t lo = 0, hi = visible_count_;
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    const int c = std::strcmp(id_of(entry(mid)), id);
    if (c == 0) return mid;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return kNone;
}

const fb::Pattern *Library::pattern(uint32_t global) const {
  uint32_t k = layer_count_ - 1;
  while (k > 0 && global < pattern_base_[k]) k--;
  return layers_[k]->pattern(global - pattern_base_[k]);
}

bool Library::causes(uint32_t x, uint32_t y) const {
  bool found = false;
  for_each_cause(x, [&](uint32_t g) { found = found || g == y; });
  return found;
}

}  // namespace faultline
