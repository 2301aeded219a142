#include "confirm_dfa.h"

#include <algorithm>
#include <bitset>
#include <map>
#include <tuple>
#include <vector>

#include "match/program.h"

namespace faultline {
namespace {

constexpr uint8_t kEndMarker = '\n';  // never inside a line: the DFA reads it as the line's end

bool is_word_byte(uint8_t c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }

using ByteSet = std::bitset<256>;

// The bytes instruction `pc` consumes; empty for the others.
ByteSet consumed(const Program &prog, uint32_t pc) {
  const uint32_t w0 = prog.words[2 * pc], x = insn_x(w0);
  ByteSet s;
  switch (insn_op(w0)) {
    case kOpByte:
      s.set(x & 0xffu);
      break;
    case kOpClass:
      for (int b = 0; b < 256; b++)
        if ((prog.classes[x][static_cast<size_t>(b) / 8] >> (b % 8)) & 1u) s.set(static_cast<size_t>(b));
      break;
    case kOpAny:
      s.set();
      break;
    default:
      break;
  }
  return s;
}

// What a position of the line looks like to the assertions.
struct Context {
  bool at_start;   // position 0
  bool prev_word;  // the byte before is a word byte
  int next;        // the byte at the position, or -1 at the line's end
};

bool holds(uint32_t kind, const Context &c) {
  switch (kind) {
    case kAssertLineStart:
      return c.at_start;
    case kAssertLineEnd:
      return c.next < 0;
    case kAssertWordBoundary:
    case kAssertNotWordBoundary: {
      const bool after = c.next >= 0 && is_word_byte(static_cast<uint8_t>(c.next));
      return (c.prev_word != after) == (kind == kAssertWordBoundary);
    }
    default:
      return false;
  }
}

// Follows the epsilon edges of `prog` from `roots` and from its start (pc 0),
// through the assertions `holds(kind)` admits: true when Match is reached,
// else the consuming instructions reached, in `out`.
template <typename Holds>
bool epsilon_closure(const Program &prog, const std::vector<uint32_t> &roots, Holds holds, std::vector<uint32_t> *out) {
  const uint32_t n = prog.insn_count();
  std::vector<bool> seen(n, false);
  std::vector<uint32_t> stack(roots.rbegin(), roots.rend());
  stack.push_back(0);
  out->clear();
  while (!stack.empty()) {
    const uint32_t pc = stack.back();
    stack.pop_back();
    if (pc >= n || seen[pc]) continue;
    seen[pc] = true;
    const uint32_t w0 = prog.words[2 * pc], x = insn_x(w0);
    switch (insn_op(w0)) {
      case kOpMatch:
        return true;
      case kOpSplit:
        stack.push_back(prog.words[2 * pc + 1]);
        stack.push_back(x);
        break;
      case kOpJump:
        stack.push_back(x);
        break;
      case kOpSave:
        stack.push_back(pc + 1);
        break;
      case kOpAssert:
        if (holds(x)) stack.push_back(pc + 1);
        break;
      default:
        out->push_back(pc);
        break;
    }
  }
  return false;
}

class Builder {
 public:
  explicit Builder(const Program &prog) : prog_(prog), n_(prog.insn_count()) {
    for (uint32_t pc = 0; pc < n_; pc++) {
      sets_.push_back(consumed(prog, pc));
      const uint32_t w0 = prog.words[2 * pc];
      if (insn_op(w0) == kOpAssert && (insn_x(w0) == kAssertWordBoundary || insn_x(w0) == kAssertNotWordBoundary))
        word_asserts_ = true;
    }
  }

  std::optional<DfaTables> build(uint32_t max_states);

 private:
  // A DFA state: the program counters waiting for the next byte, and what
  // the assertions need to know of the bytes before.
  using Key = std::tuple<std::vector<uint32_t>, bool, bool>;  // kernel, at_start, prev_word

  const Program &prog_;
  const uint32_t n_;
  std::vector<ByteSet> sets_;
  bool word_asserts_ = false;
  std::vector<int> rep_;  // a byte of each class

  void make_classes(DfaTables *t);
  // Follows the epsilon edges from the kernel and from the program's start
  // (the pattern may begin at any position): true when Match is reached,
  // else the consuming instructions reached, in `out`.
  bool closure(const std::vector<uint32_t> &kernel, const Context &c, std::vector<uint32_t> *out) const;
};

void Builder::make_classes(DfaTables *t) {
  // Bytes that every instruction (and the word-byte test) treats alike
  // share a class; the end marker is always a class of its own.
  std::map<std::vector<bool>, uint8_t> ids;
  for (int b = 0; b < 256; b++) {
    std::vector<bool> sig;
    sig.push_back(b == kEndMarker);
    if (word_asserts_) sig.push_back(is_word_byte(static_cast<uint8_t>(b)));
    for (const ByteSet &s : sets_) sig.push_back(s.test(static_cast<size_t>(b)));
    auto [it, fresh] = ids.try_emplace(sig, static_cast<uint8_t>(ids.size()));
    if (fresh) rep_.push_back(b);
    t->class_map[static_cast<size_t>(b)] = it->second;
  }
  t->class_count = static_cast<uint32_t>(ids.size());
}

bool Builder::closure(const std::vector<uint32_t> &kernel, const Context &c, std::vector<uint32_t> *out) const {
  return epsilon_closure(
      prog_, kernel, [&c](uint32_t kind) { return holds(kind, c); }, out);
}

std::optional<DfaTables> Builder::build(uint32_t max_states) {
  DfaTables t;
  make_classes(&t);
  std::map<Key, uint32_t> ids;
  std::vector<Key> states;
  auto id_of = [&](Key k) {
    auto [it, fresh] = ids.try_emplace(k, static_cast<uint32_t>(states.size()));
    if (fresh) states.push_back(std::move(k));
    return it->second;
  };
  // Targets are written as kDead / kAccept until the state count is known.
  constexpr uint32_t kDead = 0xfffffffeu, kAccept = 0xffffffffu;
  std::vector<uint32_t> trans;
  id_of(Key{{}, true, false});
  std::vector<uint32_t> reached, next;
  for (uint32_t s = 0; s < states.size(); s++) {
    if (states.size() > max_states) return std::nullopt;
    const Key key = states[s];  // copied: id_of may grow `states`
    const auto &[kernel, at_start, prev_word] = key;
    for (uint32_t cls = 0; cls < t.class_count; cls++) {
      const int b = rep_[cls];
      const bool end = b == kEndMarker;
      if (closure(kernel, Context{at_start, prev_word, end ? -1 : b}, &reached)) {
        trans.push_back(kAccept);
        continue;
      }
      if (end) {  // nothing follows the end marker
        trans.push_back(kDead);
        continue;
      }
      next.clear();
      for (uint32_t pc : reached)
        if (sets_[pc].test(static_cast<size_t>(b))) next.push_back(pc + 1);
      std::sort(next.begin(), next.end());
      next.erase(std::unique(next.begin(), next.end()), next.end());
      // With no pending thread and no way to start again (an anchored
      // pattern past its start), nothing can match any more.
      const bool word = word_asserts_ && is_word_byte(static_cast<uint8_t>(b));
      if (next.empty()) {
        std::vector<uint32_t> restart;
        const bool restart_matches = closure({}, Context{false, word, -1}, &restart);
        bool can_start = restart_matches;
        for (uint32_t pc : restart) can_start = can_start || sets_[pc].any();
        // Word asserts depend on the next byte: keep such states exact.
        if (!can_start && !word_asserts_) {
          trans.push_back(kDead);
          continue;
        }
      }
      trans.push_back(id_of(Key{next, false, word}));
    }
  }
  const uint32_t live = static_cast<uint32_t>(states.size());
  if (live + 2 > max_states) return std::nullopt;
  t.state_count = live + 2;
  t.accept_base = live;
  t.start = 0;
  for (uint32_t &target : trans)
    if (target == kDead)
      target = live;
    else if (target == kAccept)
      target = live + 1;
  for (uint32_t final_state : {live, live + 1})
    for (uint32_t cls = 0; cls < t.class_count; cls++) trans.push_back(final_state);
  t.trans = std::move(trans);
  t.accept_offsets = {0, 0, 1};  // the dead state accepts nothing, the match state piece 0
  t.accepts = {0};
  return t;
}

}  // namespace

std::optional<std::array<uint8_t, 32>> program_start_bytes(const Program &prog) {
  const uint32_t n = prog.insn_count();
  if (n == 0) return std::nullopt;
  // Every instruction reachable from the start without consuming a byte,
  // at a position past 0: line-start assertions fail there; the others may
  // hold (a superset is safe).
  std::vector<uint32_t> reached;
  if (epsilon_closure(
          prog, {}, [](uint32_t kind) { return kind != kAssertLineStart; }, &reached))
    return std::nullopt;  // an empty match: any position may start it
  ByteSet first;
  for (uint32_t pc : reached) first |= consumed(prog, pc);
  if (first.all()) return std::nullopt;
  std::array<uint8_t, 32> bits{};
  for (size_t b = 0; b < 256; b++)
    if (first.test(b)) bits[b / 8] |= static_cast<uint8_t>(1u << (b % 8));
  return bits;
}

std::optional<DfaTables> build_confirm_dfa(const Program &prog, uint32_t max_states) {
  if (prog.insn_count() == 0) return std::nullopt;
  return Builder(prog).build(max_states);
}

}  // namespace faultline
