// Read-only file mapping: the only OS-specific code of libcore.
#pragma once

#include <cstddef>

#include "common/status.h"

namespace faultline {

struct MappedFile {
  void *data = nullptr;
  size_t size = 0;
};

// Maps `path` read-only. Empty files are refused (a pack is never empty).
Status map_file(const char *path, MappedFile *out, ErrorText *err);
void unmap_file(MappedFile *f);

}  // namespace faultline
