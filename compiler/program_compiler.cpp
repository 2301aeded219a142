#include "program_compiler.h"

#include "match/program.h"

namespace faultline {
namespace {

using regex::Node;
using regex::NodeKind;

class Emitter {
 public:
  Program prog;

  uint32_t pc() const { return prog.insn_count(); }

  uint32_t emit(Op op, uint32_t x = 0, uint32_t y = 0) {
    if (pc() >= kMaxProgramSize)
      throw ProgramTooLarge("pattern compiles to more than " + std::to_string(kMaxProgramSize) +
                            " instructions; shorten counted repetitions");
    prog.words.push_back(insn_word0(op, x));
    prog.words.push_back(y);
    return pc() - 1;
  }
  void patch_x(uint32_t at, uint32_t x) { prog.words[2 * at] = insn_word0(insn_op(prog.words[2 * at]), x); }
  void patch_y(uint32_t at, uint32_t y) { prog.words[2 * at + 1] = y; }

  uint32_t class_index(const regex::ByteSet &s) {
    std::array<uint8_t, 32> bits{};
    for (unsigned b = 0; b < 256; b++)
      if (s.test(b)) bits[b / 8] |= static_cast<uint8_t>(1u << (b % 8));
    for (uint32_t i = 0; i < prog.classes.size(); i++)
      if (prog.classes[i] == bits) return i;
    prog.classes.push_back(bits);
    return static_cast<uint32_t>(prog.classes.size() - 1);
  }

  // A split whose preferred branch is the next instruction (greedy) or `y`
  // (lazy); the other target is patched later.
  uint32_t split_to_next(bool greedy) {
    uint32_t at = emit(kOpSplit);
    if (greedy)
      patch_x(at, at + 1);
    else
      patch_y(at, at + 1);
    return at;
  }
  void patch_other(uint32_t split, bool greedy, uint32_t target) {
    if (greedy)
      patch_y(split, target);
    else
      patch_x(split, target);
  }

  void node(const Node &n) {
    switch (n.kind) {
      case NodeKind::kEmpty:
        break;
      case NodeKind::kBytes: {
        size_t count = n.bytes.count();
        if (count == 1) {
          for (unsigned b = 0; b < 256; b++)
            if (n.bytes.test(b)) emit(kOpByte, b);
        } else if (count == 255 && !n.bytes.test('\n')) {
          emit(kOpAny);  // lines never contain '\n'
        } else {
          emit(kOpClass, class_index(n.bytes));
        }
        break;
      }
      case NodeKind::kConcat:
        for (const auto &k : n.kids) node(*k);
        break;
      case NodeKind::kAlt: {
        std::vector<uint32_t> jumps;
        for (size_t i = 0; i < n.kids.size(); i++) {
          if (i + 1 < n.kids.size()) {
            uint32_t split = split_to_next(true);
            node(*n.kids[i]);
            jumps.push_back(emit(kOpJump));
            patch_other(split, true, pc());
          } else {
            node(*n.kids[i]);
          }
        }
        for (uint32_t j : jumps) patch_x(j, pc());
        break;
      }
      case NodeKind::kGroup:
        if (n.capture > 0) emit(kOpSave, 2u * n.capture);
        node(*n.kids[0]);
        if (n.capture > 0) emit(kOpSave, 2u * n.capture + 1);
        break;
      case NodeKind::kAssert: {
        static const AssertOp ops[] = {kAssertLineStart, kAssertLineEnd, kAssertWordBoundary, kAssertNotWordBoundary};
        emit(kOpAssert, ops[static_cast<int>(n.assertion)]);
        break;
      }
      case NodeKind::kRepeat:
        repeat(n);
        break;
    }
  }

  // x+ as L: body; split L, out (the preferred branch loops when greedy).
  void plus_loop(const Node &body, bool greedy) {
    uint32_t start = pc();
    node(body);
    uint32_t split = emit(kOpSplit);
    patch_x(split, greedy ? start : split + 1);
    patch_y(split, greedy ? split + 1 : start);
  }

  // e{min,max}: min copies, then either a loop (max unbounded) or max-min
  // nested optional copies, as RE2 expands counted repetition.
  void repeat(const Node &n) {
    const Node &body = *n.kids[0];
    const bool g = n.greedy;
    if (n.max < 0) {
      if (n.min == 0 && regex::nullable(body)) {
        // x* with an x that can match empty is compiled as (x+)?, as RE2
        // does: one empty iteration may set captures (Perl semantics).
        uint32_t skip = split_to_next(g);
        plus_loop(body, g);
        patch_other(skip, g, pc());
      } else if (n.min == 0) {  // L: split body, out; body; jmp L
        uint32_t loop = split_to_next(g);
        node(body);
        emit(kOpJump, loop);
        patch_other(loop, g, pc());
      } else {  // min-1 copies, then x+
        for (int i = 0; i < n.min - 1; i++) node(body);
        plus_loop(body, g);
      }
      return;
    }
    for (int i = 0; i < n.min; i++) node(body);
    std::vector<uint32_t> splits;
    for (int i = n.min; i < n.max; i++) {
      splits.push_back(split_to_next(g));
      node(body);
    }
    for (uint32_t s : splits) patch_other(s, g, pc());
  }
};

}  // namespace

Program compile_program(const regex::Regex &re) {
  Emitter e;
  e.prog.slot_count = 2 * static_cast<uint32_t>(re.capture_names.size() + 1);
  e.emit(kOpSave, 0);
  e.node(*re.root);
  e.emit(kOpSave, 1);
  e.emit(kOpMatch);
  return std::move(e.prog);
}

}  // namespace faultline
