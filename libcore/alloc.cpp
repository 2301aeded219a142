#include "alloc.h"

#include <cstring>

namespace faultline {

void *Allocator::allocate_zeroed(size_t n, size_t size) const {
  if (size != 0 && n > static_cast<size_t>(-1) / size) return nullptr;
  size_t bytes = n * size;
  void *p = allocate(bytes ? bytes : 1);
  if (p) std::memset(p, 0, bytes ? bytes : 1);
  return p;
}

}  // namespace faultline
