// The structs behind the C API's opaque handles. C++ stays on this side.
#pragma once

#include <atomic>

#include "common/alloc.h"
#include "faultline.h"
#include "match/line_scanner.h"
#include "match/pack_reader.h"
#include "platform/file_map.h"

struct fl_pack {
  faultline::PackView view;
  faultline::Allocator alloc;
  faultline::MappedFile map;  // set when the pack owns a file mapping
};

struct fl_scanner {
  const fl_pack *pack = nullptr;
  faultline::Allocator alloc;
  faultline::LineScanner lines;
  std::atomic<bool> in_use{false};
  char errmsg[160] = {0};
};
