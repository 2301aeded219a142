// An fl_allocator that counts live and peak bytes and the number of
// allocations (atomically: the thread tests share one). Tests assert memory
// bounds with it, as an embedder would measure them.
#pragma once

#include <atomic>
#include <cstdlib>

#include "faultline.h"

struct CountingAllocator {
  std::atomic<size_t> live{0}, peak{0}, calls{0};
  static void *alloc(void *ctx, size_t n) {
    auto *c = static_cast<CountingAllocator *>(ctx);
    ++c->calls;
    auto *p = static_cast<size_t *>(std::malloc(n + 16));
    if (!p) return nullptr;
    p[0] = n;
    size_t now = c->live += n;
    size_t old = c->peak.load();
    while (now > old && !c->peak.compare_exchange_weak(old, now)) {
    }
    return p + 2;
  }
  static void release(void *ctx, void *ptr) {
    if (!ptr) return;
    auto *p = static_cast<size_t *>(ptr) - 2;
    static_cast<CountingAllocator *>(ctx)->live -= p[0];
    std::free(p);
  }
  fl_allocator allocator() { return fl_allocator{alloc, release, this}; }
};
