// What the faultline command reads: files, directories (every log file in
// them, e.g. torchrun's --log-dir layout) and "-" for stdin; gzip and zstd
// compressed input is decompressed transparently (detected by magic bytes).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace cli {

// Expands the command line's inputs into the list of sources to read, in a
// stable order. Returns false (with a message) when an input does not exist.
bool expand_inputs(const std::vector<std::string> &args, std::vector<std::string> *out, std::string *err);

// Receives decompressed bytes; returns false to stop reading.
using Sink = std::function<bool(const char *data, size_t len)>;

// Reads `path` ("-" = stdin), decompressing gzip/zstd, and hands the bytes to
// `sink` in chunks. With `progress`, a status line on stderr shows how far a
// large input is. Returns false with a message on a read or format error.
// A damaged archive (corrupt or truncated gzip/zstd) has its good part read,
// a warning on stderr, and returns true; `damage` (when given) receives the
// warning, so that the report can say its input was incomplete.
bool read_source(const std::string &path, const Sink &sink, std::string *err, bool progress = false,
                 std::string *damage = nullptr);

}  // namespace cli
