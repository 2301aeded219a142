// A pattern's confirmation DFA: the whole pattern, decided in one pass over
// the line. The piece DFAs only say that a line may match (they leave out
// gaps such as `.*`); before this, every such candidate ran the backtracker,
// which costs tens of steps per byte on long lines that do not match. The
// DFA is built by subset construction over the pattern's program (the
// Thompson NFA already in the pack), so it decides exactly what the program
// decides; the program then runs only on lines that match, for captures.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "program_compiler.h"
#include "ragel_dfa.h"

namespace faultline {

// Beyond this many states the pattern keeps the backtracker alone: a
// pattern whose DFA blows up is rare, and the pack must stay small.
inline constexpr uint32_t kConfirmDfaMaxStates = 1024;

// The DFA of "does `prog` match anywhere in the line" over line + '\n' (the
// end marker of the pack's DFAs). Its last two states are final and stop a
// run (libcore/match/dfa.h, dfa_decides): accept_base is the dead state (no
// match is possible any more), accept_base + 1 the match (accepting piece 0).
// Empty when the DFA would exceed max_states.
std::optional<DfaTables> build_confirm_dfa(const Program &prog, uint32_t max_states = kConfirmDfaMaxStates);

// The bytes a match can begin with at a position past the line's start, as
// a 32-byte bitmap (bit b = byte b): the backtracker tries no other start.
// Empty when every byte can (or a match may consume nothing).
std::optional<std::array<uint8_t, 32>> program_start_bytes(const Program &prog);

}  // namespace faultline
