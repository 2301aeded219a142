// Reading files: a read-only mapping (packs), a whole read into owned memory
// (a signed pack) and a bounded small read (its signature). The only
// OS-specific code of libcore.
#pragma once

#include <cstddef>

#include "common/alloc.h"
#include "common/status.h"

namespace faultline {

struct MappedFile {
  void *data = nullptr;
  size_t size = 0;
};

// Maps `path` read-only. Empty files are refused (a pack is never empty).
Status map_file(const char *path, MappedFile *out, ErrorText *err);
void unmap_file(MappedFile *f);

// Reads the whole of `path` (a regular file of 1 to `max_size` bytes) into
// memory from `alloc`, which the caller releases. Unlike a mapping, the bytes
// cannot change after they are read, whatever happens to the file: what is
// verified is what is used. kIo (unreadable, not a regular file, larger than
// max_size, changed size while read), kNotAPack (empty) or kNoMem.
Status read_whole_file(const char *path, const Allocator &alloc, size_t max_size, void **out, size_t *size, ErrorText *err);

// Reading a small file of bounded size into a caller's buffer (a detached
// signature): one open, fstat on that descriptor, at most `cap` bytes read.
enum class SmallFile {
  kRead,        // *size bytes read into buf
  kMissing,     // no such file (ENOENT)
  kNotRegular,  // a directory, FIFO, device...
  kTooLarge,    // more than `cap` bytes: nothing read
  kError,       // open or read failed otherwise (err says why)
};
SmallFile read_small_file(const char *path, void *buf, size_t cap, size_t *size, ErrorText *err);

}  // namespace faultline
