// From pieces to DFA tables through Ragel: emit the Ragel source of a union
// of pieces, run `ragel -x`, read its XML state table, and turn it into the
// dense tables of the pack (byte classes, transitions, per-state accepts).
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace faultline {

struct RagelError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Ragel ran out of its CPU-time or memory limit: the union is too large for
// one DFA and must be partitioned.
struct RagelTooLarge : RagelError {
  using RagelError::RagelError;
};

// Resource limits of one Ragel run. Determinizing a union can blow up
// exponentially; the limits turn that into a partitioning decision instead
// of a machine that swaps.
struct RagelLimits {
  unsigned cpu_seconds = 60;
  unsigned memory_mb = 4096;
  bool minimize = true;  // Ragel's -l (default) or -n
};

// A piece as the DFA builder sees it.
struct DfaPiece {
  uint32_t id;        // global piece index: what accepting states report
  std::string ragel;  // machine text from piece_to_ragel()
  std::string label;  // "entry/pattern", for messages
};

// Ragel source for one DFA. Each piece gets a finishing action named p<id>.
std::string emit_ragel_source(const std::vector<DfaPiece> &pieces, const std::string &machine_name);

// The state table as Ragel's XML describes it.
struct RagelMachine {
  struct Range {
    int lo, hi;
    int target;        // state id
    int action_table;  // -1: none
  };
  struct State {
    std::vector<Range> ranges;
  };
  std::vector<State> states;
  int start = 0;
  std::vector<std::vector<int>> action_tables;  // action ids per table
  std::vector<std::string> action_names;        // by action id
};

RagelMachine parse_ragel_xml(std::string_view xml);

// Runs `ragel -x` on `source` and returns the XML. `ragel` is the executable.
// Throws RagelTooLarge when Ragel exceeds `limits`, RagelError otherwise.
std::string run_ragel(const std::string &ragel, const std::string &source, const RagelLimits &limits = {});

// Dense tables as stored in the pack (see libcore/match/dfa.h).
struct DfaTables {
  uint32_t state_count = 0, class_count = 0, start = 0, accept_base = 0;
  std::array<uint8_t, 256> class_map{};
  std::vector<uint32_t> trans;           // state_count * class_count
  std::vector<uint32_t> accept_offsets;  // state_count - accept_base + 1
  std::vector<uint32_t> accepts;         // piece ids
};

// Converts Ragel's machine: transitions that carry accept actions lead to
// split copies of their target state, so acceptance becomes a property of
// states (>= accept_base) and the scan loop needs one compare per byte.
DfaTables build_tables(const RagelMachine &m);

// The whole path: source -> ragel -> tables.
DfaTables compile_dfa(const std::string &ragel, const std::vector<DfaPiece> &pieces, const std::string &name,
                      const RagelLimits &limits = {});

}  // namespace faultline
