// Building a pack from compiled signatures: number entries, patterns and
// pieces, plan the literal filter, partition the pieces into DFAs
// (dfa_partition.h), and serialize everything as the FlatBuffers content
// behind the fixed header. Pairs with
// libcore/match/pack_reader.cpp (reads it) and compiler/pack_dump.cpp (prints it).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dfa_partition.h"
#include "match/pack_header.h"
#include "signature.h"

namespace faultline {

// What partitioning the pieces into DFAs reads (DfaPartitionOptions), and
// what the rest of the build reads.
struct BuildOptions : DfaPartitionOptions {
  std::string pack_version = "0.1.0";
  std::string library_name;  // library.yaml name ("" when the library has none)
  uint64_t build_time = 0;   // seconds since 1970 (SOURCE_DATE_EPOCH); 0 = not recorded
  // A layered library (library.yaml base:): what it stands over and turns off.
  bool layered = false;
  std::string base_name, base_versions;
  std::vector<std::string> disables;
  uint32_t literal_stride = 0;  // literal filter stride; 0: flc's cost model picks it
};

struct BuildResult {
  std::vector<uint8_t> bytes;  // the whole pack, header included
  std::vector<DfaStats> dfas;
  double seconds = 0;
  bool literal_filter_complete = false;  // false: some entry pattern has no literal of 4+ bytes, every line runs the DFAs
};

// Throws RagelError (or std::runtime_error) when a DFA cannot be built.
BuildResult build_pack(const std::vector<Signature> &sigs, const BuildOptions &opt, const std::vector<Framing> &framings = {});

// A whole pack: the fixed header (counts, XXH64 of the content) followed by
// the finished FlatBuffers content.
std::vector<uint8_t> frame_pack(const uint8_t *content, size_t size);

// Writes bytes to path atomically (temp file + rename).
void write_file(const std::string &path, const std::vector<uint8_t> &bytes);

}  // namespace faultline
