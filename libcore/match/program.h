// Confirmation programs: the whole pattern of a signature compiled to a small
// Thompson-NFA instruction list, run by a Pike VM on the rare lines where the
// DFA prefilter saw every piece of the pattern. The VM decides the match with
// leftmost-first (Perl/RE2) semantics and extracts the named captures, in time
// linear in the line length times the program length, with no backtracking.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/limits.h"

namespace faultline {

// An instruction is two 32-bit words: word 0 holds the opcode in its low 8
// bits and argument x in its high 24 bits; word 1 holds argument y.
enum Op : uint8_t {
  kOpByte = 0,    // x: the byte to match
  kOpClass = 1,   // x: index of a 32-byte bitmap in the class table
  kOpAny = 2,     // any byte (lines never contain '\n')
  kOpSplit = 3,   // try x first, then y
  kOpJump = 4,    // continue at x
  kOpSave = 5,    // x: capture slot (2*group = start, 2*group+1 = end)
  kOpAssert = 6,  // x: AssertOp
  kOpMatch = 7,
};
inline constexpr uint8_t kOpCount = 8;

enum AssertOp : uint8_t { kAssertLineStart = 0, kAssertLineEnd = 1, kAssertWordBoundary = 2, kAssertNotWordBoundary = 3 };
inline constexpr uint8_t kAssertCount = 4;

inline uint32_t insn_word0(Op op, uint32_t x) { return static_cast<uint32_t>(op) | (x << 8); }
inline Op insn_op(uint32_t word0) { return static_cast<Op>(word0 & 0xffu); }
inline uint32_t insn_x(uint32_t word0) { return word0 >> 8; }

// A program as it lies in the pack (borrowed views).
struct ProgramView {
  const uint32_t *insns = nullptr;  // 2 words per instruction
  uint32_t insn_count = 0;
  const uint8_t *classes = nullptr;  // 32 bytes per class bitmap, bit b = byte b
  uint32_t class_count = 0;
  uint32_t slot_count = 0;  // 2 * (named captures + 1)
  // Bytes a match can begin with past position 0 (bit b = byte b), from the
  // pack; NULL = any. The backtracker skips the other starts.
  const uint8_t *start_bytes = nullptr;
};

// A program that starts "save 0; assert line-start" can only match from
// position 0 of the text it runs on.
inline bool program_anchored(const ProgramView &p) {
  return p.insn_count >= 2 && insn_op(p.insns[0]) == kOpSave && insn_op(p.insns[2]) == kOpAssert &&
         insn_x(p.insns[2]) == kAssertLineStart;
}

// A program not anchored as a whole with a line-start assertion inside, in
// one of its alternatives ("(?:NCCL WARN |^)Cuda failure"): that '^' holds at
// the message start behind the line's prefixes too, so the matcher tries such
// a program again from there when the whole line does not match.
inline bool program_starts_inside(const ProgramView &p) {
  if (program_anchored(p)) return false;
  for (uint32_t k = 0; k < p.insn_count; k++)
    if (insn_op(p.insns[2 * k]) == kOpAssert && insn_x(p.insns[2 * k]) == kAssertLineStart) return true;
  return false;
}

// Checks that every jump, split, class and save index of `p` is in range and
// that every opcode is known: what the pack verifier runs before any VM use.
bool program_is_valid(const ProgramView &p);

// Working memory for one VM run, sized for the largest program of a pack.
// The caller owns `memory`; pike_scratch_bytes() says how much it needs.
size_t pike_scratch_bytes(uint32_t max_insns, uint32_t max_slots);

// The backtracker (below) covers programs x line positions up to this many
// states, with a bounded job stack; beyond either bound the Pike VM runs.
inline constexpr size_t kBitStateMaxStates = 256 * 1024;
inline constexpr size_t kBitStateScratch =
    kBitStateMaxStates / 8 + kBitStateMaxStates / 64 * sizeof(uint32_t) + 4096 * 12 + kMaxSlotCount * sizeof(int32_t) + 64;

// A backtracker with a visited bit per (instruction, position): the same
// leftmost-first result as the Pike VM, much faster on short lines. Sets
// *gave_up when the run exceeds its scratch (the caller then runs the VM).
// `work`, when not NULL, is the work budget (limits.h) the run spends:
// kBitStateVisitWork units per state visited; the run stops with *gave_up
// when it is spent. The scratch must be zeroed before its first use (each run
// leaves it so).
inline constexpr int64_t kBitStateVisitWork = 5;  // a visit costs about five DFA steps (callgrind)
bool bitstate_match(const ProgramView &p, const uint8_t *line, size_t len, void *scratch, int32_t *slots, bool *gave_up,
                    int64_t *work = nullptr);

// Runs the program over `line`. On a match returns true and fills
// slots[0 .. p.slot_count) with byte offsets (-1 for a group that did not
// take part). `scratch` must hold pike_scratch_bytes(p.insn_count,
// p.slot_count) bytes, 8-byte aligned, zeroed before first use. Allocates nothing.
// The backtracker when it can, else the Pike VM. With a work budget
// (`work` not NULL, see bitstate_match), a run that spends it all returns
// false and sets *out_of_work.
bool pike_match(const ProgramView &p, const uint8_t *line, size_t len, void *scratch, int32_t *slots, int64_t *work = nullptr,
                bool *out_of_work = nullptr);

// The Pike VM alone (tests compare it with the backtracker). It spends
// kPikeStepWork units of `work` per thread step.
bool pike_vm_match(const ProgramView &p, const uint8_t *line, size_t len, void *scratch, int32_t *slots, int64_t *work = nullptr,
                   bool *out_of_work = nullptr);
inline constexpr int64_t kPikeStepWork = 8;  // a thread step copies its capture slots: about 8 DFA steps (callgrind)

}  // namespace faultline
