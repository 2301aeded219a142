// The structs behind the C API's opaque handles. C++ stays on this side.
#pragma once

#include <atomic>

#include "common/alloc.h"
#include "faultline.h"
#include "match/line_matcher.h"
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
  faultline::LineMatcher matcher;
  uint32_t max_line_bytes = 0;

  // The line being assembled across chunks: at most max_line_bytes kept.
  uint8_t *line = nullptr;
  size_t line_len = 0;
  bool line_truncated = false;
  bool line_open = false;      // some bytes of the current line were seen
  bool pending_cr = false;     // the last chunk ended in '\r': a '\n' next is part of that break
  uint8_t *clean = nullptr;    // the line with ANSI escape sequences removed
  fl_capture *captures = nullptr;
  uint32_t max_captures = 0;

  uint64_t offset = 0;         // stream offset of the next byte fed
  uint64_t line_start = 0;     // stream offset of the current line
  uint64_t line_number = 0;    // of the last completed line
  fl_scanner_stats stats{};

  // The current line's frame (from framing patterns), reset per line.
  struct Frame {
    int64_t rank, local_rank, pid, device;
    const char *host, *time;
    size_t host_len, time_len;
    // Where in the line the value of each field stands (rank, local_rank,
    // pid, device, host, time); -1 = unset. A later value wins.
    int32_t from[6];
  } frame{};

  // Per call: the user's callback and whether it asked to stop.
  fl_event_fn fn = nullptr;
  void *ctx = nullptr;
  bool stopped = false;

  std::atomic<bool> in_use{false};
  char errmsg[160] = {0};
};
