// Compiles a parsed pattern into a confirmation program for the Pike VM in
// libcore/match/program.h.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "common/limits.h"
#include "regex_ast.h"

namespace faultline {

struct Program {
  std::vector<uint32_t> words;                   // 2 per instruction
  std::vector<std::array<uint8_t, 32>> classes;  // bitmaps
  uint32_t slot_count = 2;
  uint32_t insn_count() const { return static_cast<uint32_t>(words.size() / 2); }
};

// Programs larger than this are refused: a counted repetition such as
// (?:...){500} multiplies its body, and scanner memory grows with it.

struct ProgramTooLarge : std::runtime_error {
  using std::runtime_error::runtime_error;
};

Program compile_program(const regex::Regex &re);

}  // namespace faultline
