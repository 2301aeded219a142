// Internal status codes of libcore. They map one-to-one onto the public
// fl_status values once the C API exists (include/faultline.h).
#pragma once

#include <cstddef>

namespace faultline {

enum class Status {
  kOk = 0,
  kInvalidArg,   // a caller error: null pointer, misaligned memory, bad size
  kNoMem,        // an allocation failed
  kIo,           // reading a file failed
  kNotAPack,     // the bytes do not start with the pack magic
  kPackVersion,  // the pack's format major differs from the runtime's
  kPackCorrupt,  // length, hash, FlatBuffers structure or an index is wrong
};

// Fixed-size message buffer for failures that happen before a handle exists.
struct ErrorText {
  char text[256] = {0};
  void set(const char *fmt, ...) __attribute__((format(printf, 2, 3)));
};

}  // namespace faultline
