// What the faultline command reads: files, directories (every log file in
// them, e.g. torchrun's --log-dir layout) and "-" for stdin.
#pragma once

#include <string>
#include <vector>

namespace cli {

// Expands the command line's inputs into the list of sources to read, in a
// stable order. Returns false (with a message) when an input does not exist.
bool expand_inputs(const std::vector<std::string> &args, std::vector<std::string> *out, std::string *err);

// Reads `path` ("-" = stdin) in chunks and hands each to `sink`. Returns
// false with errno's message on a read error.
template <typename Sink>
bool read_source(const std::string &path, Sink sink, std::string *err);

}  // namespace cli

#include "inputs_impl.h"
