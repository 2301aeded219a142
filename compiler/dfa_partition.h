// Grouping a pack's pieces into DFAs: bins cut along the literal filter's
// keys, each built by Ragel and split in halves while it exceeds the state
// budget; then which DFAs each key runs. compiler/pack_writer.cpp writes the
// resulting tables into the pack.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "literal_filter_build.h"
#include "ragel_dfa.h"

namespace faultline {

struct DfaPartitionOptions {
  std::string ragel = "ragel";    // executable
  uint32_t state_budget = 20000;  // a DFA with more states is split in two
  unsigned jobs = 2;              // Ragel runs in parallel
  RagelLimits ragel_limits;       // a run beyond them counts as over budget
  std::string emit_ragel_dir;     // when set, each DFA's .rl is written there
};

struct DfaStats {
  uint32_t pieces = 0, states = 0, classes = 0, table_bytes = 0;
  double seconds = 0;
};

struct BuiltDfa {
  std::vector<DfaPiece> pieces;
  DfaTables tables;
  DfaStats stats;  // table_bytes is the pack writer's: it picks the transition width
};

struct DfaPartition {
  std::vector<BuiltDfa> dfas;                   // in pack order
  std::vector<std::vector<uint32_t>> key_dfas;  // per plan key: the DFAs holding its patterns' pieces, ascending
  std::vector<uint32_t> framing_dfas;           // the DFAs holding framing pieces, ascending
};

// Partitions `pieces` (pieces[i].id == i) into DFAs. piece_pattern[i] is the
// pattern of pieces[i]; patterns below `entry_patterns` are entry patterns,
// keyed by `plan`, the others framing patterns.
// Throws RagelError (or std::runtime_error) when a DFA cannot be built.
DfaPartition partition_dfas(const std::vector<DfaPiece> &pieces, const std::vector<uint32_t> &piece_pattern,
                            uint32_t entry_patterns, const LiteralPlan &plan, const DfaPartitionOptions &opt);

}  // namespace faultline
