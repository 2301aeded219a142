// The allocator an object was created with (fl_allocator, or malloc/free).
// Every allocation of a pack, scanner or diagnoser goes through it, and names
// the source line that asked for it: tests fail each site in turn and count
// them (tests/api/alloc_failure_test.cpp).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "faultline.h"

namespace faultline {

// Called with the site of every allocation when set. A test seam, unset in
// production: one relaxed load per allocation, and none is on the scan path.
using AllocSiteHook = void (*)(const char *file, unsigned line);

// The source line of a call: a default argument Site() is evaluated where the
// call is. (Not std::source_location: clang before 15 cannot compile it.)
struct Site {
  const char *file;
  unsigned line;
  constexpr Site(const char *f = __builtin_FILE(), unsigned l = __builtin_LINE()) : file(f), line(l) {}
};
extern std::atomic<AllocSiteHook> g_alloc_site_hook;

struct Allocator {
  void *(*alloc_fn)(void *ctx, size_t size) = nullptr;
  void (*free_fn)(void *ctx, void *ptr) = nullptr;
  void *ctx = nullptr;
  uint64_t *failures = nullptr;  // when set, counts allocations that returned NULL

  static Allocator from(const fl_allocator *a) {
    Allocator out;
    if (a && a->alloc && a->free) {
      out.alloc_fn = a->alloc;
      out.free_fn = a->free;
      out.ctx = a->ctx;
    }
    return out;
  }
  // Out of line, so that alloc.cpp is the one object of the library that
  // calls malloc and free (tests/api/alloc_symbols_test.sh checks).
  void *allocate(size_t n, Site site = Site()) const;
  void release(void *p) const;
  // Zeroed memory for n items of size each; NULL on overflow or failure.
  void *allocate_zeroed(size_t n, size_t size, Site site = Site()) const;
};

}  // namespace faultline
