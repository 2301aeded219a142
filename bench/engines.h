// The engines the benchmark compares on the same bytes: faultline's scanner
// with the entry patterns alone and with the shipped pack, Vectorscan (block and streaming), RE2::Set, and the
// memchr ceiling. Each counts matches the same way: (line, pattern) pairs of
// the pack's entry patterns.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace bench {

class Engine {
 public:
  virtual ~Engine() = default;
  virtual std::string name() const = 0;
  // Scans `text` (whole lines) and returns the number of (line, pattern) matches.
  virtual uint64_t scan(const std::string &text) = 0;
  // False when the engine cannot count matches (the memchr ceiling).
  virtual bool counts() const { return true; }
};

// Patterns exported by `flc export`: index i is the pack's pattern i.
std::vector<std::string> read_exported_patterns(const std::string &path);

// `pack_path` empty: the shipped default pack (or $FAULTLINE_PACK). `counts`:
// whether its count is comparable with the baselines' (a pack without
// framing, where '^' is the line start as in the exported patterns).
std::unique_ptr<Engine> make_faultline(size_t chunk_bytes, const std::string &pack_path, const std::string &name, bool counts);
std::unique_ptr<Engine> make_memchr();
// nullptr (and a message in *why) when not built or the patterns do not compile.
std::unique_ptr<Engine> make_vectorscan_block(const std::vector<std::string> &patterns, std::string *why);
std::unique_ptr<Engine> make_vectorscan_stream(const std::vector<std::string> &patterns, size_t chunk_bytes, std::string *why);
std::unique_ptr<Engine> make_re2_set(const std::vector<std::string> &patterns, std::string *why);

}  // namespace bench
