// The allocator an object was created with (fl_allocator, or malloc/free).
// Every allocation of a pack or scanner goes through it.
#pragma once

#include <cstddef>
#include <cstdlib>

#include "faultline.h"

namespace faultline {

struct Allocator {
  void *(*alloc_fn)(void *ctx, size_t size) = nullptr;
  void (*free_fn)(void *ctx, void *ptr) = nullptr;
  void *ctx = nullptr;

  static Allocator from(const fl_allocator *a) {
    Allocator out;
    if (a && a->alloc && a->free) {
      out.alloc_fn = a->alloc;
      out.free_fn = a->free;
      out.ctx = a->ctx;
    }
    return out;
  }
  void *allocate(size_t n) const { return alloc_fn ? alloc_fn(ctx, n) : std::malloc(n); }
  void release(void *p) const {
    if (!p) return;
    if (free_fn) free_fn(ctx, p);
    else std::free(p);
  }
  // Zeroed memory for n items of size each; NULL on overflow or failure.
  void *allocate_zeroed(size_t n, size_t size) const;
};

}  // namespace faultline
