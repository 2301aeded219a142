#include "common/alloc.h"

#include <cstdlib>
#include <cstring>

namespace faultline {

std::atomic<AllocSiteHook> g_alloc_site_hook{nullptr};

void *Allocator::allocate(size_t n, Site site) const {
  if (AllocSiteHook hook = g_alloc_site_hook.load(std::memory_order_relaxed)) hook(site.file, site.line);
  void *p = alloc_fn ? alloc_fn(ctx, n) : std::malloc(n);
  if (!p && failures) ++*failures;
  return p;
}

void Allocator::release(void *p) const {
  if (!p) return;
  if (free_fn)
    free_fn(ctx, p);
  else
    std::free(p);
}

void *Allocator::allocate_zeroed(size_t n, size_t size, Site site) const {
  if (size != 0 && n > static_cast<size_t>(-1) / size) return nullptr;
  size_t bytes = n * size;
  void *p = allocate(bytes ? bytes : 1, site);
  if (p) std::memset(p, 0, bytes ? bytes : 1);
  return p;
}

}  // namespace faultline
