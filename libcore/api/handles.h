// The structs behind the C API's opaque handles. C++ stays on this side.
#pragma once

#include <atomic>

#include "common/alloc.h"
#include "faultline.h"
#include "match/library.h"
#include "match/line_scanner.h"
#include "match/pack_reader.h"
#include "platform/file_map.h"

struct fl_pack {
  faultline::PackView view;  // one pack; unused by a stack
  faultline::Library lib;    // what scanners and diagnosers read: this pack, or the stack
  faultline::Allocator alloc;
  faultline::MappedFile map;  // set when the pack owns a file mapping
  // A stack holds a reference to each of its packs, bottom first.
  const fl_pack *layers[faultline::Library::kMaxLayers] = {};
  uint32_t layer_count = 0;
  void *owned = nullptr;  // set when the pack owns a copy of the file (a signed pack), from `alloc`
  char signer[64] = {0};  // who signed it, as the verifier said ("" unsigned or unverified)
  // The caller's reference (until fl_pack_free) and one per scanner and
  // diagnoser made from it: the pack is released with the last of them, so
  // freeing it early never leaves them reading freed memory.
  mutable std::atomic<uint32_t> refs{1};
};

namespace faultline {
void pack_retain(const fl_pack *pack);
void pack_release(const fl_pack *pack);
}  // namespace faultline

struct fl_scanner {
  const fl_pack *pack = nullptr;
  faultline::Allocator alloc;
  faultline::LineScanner lines;
  std::atomic<bool> in_use{false};
  char errmsg[160] = {0};
};
