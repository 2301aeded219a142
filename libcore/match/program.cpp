// Pike VM over confirmation programs (see program.h). Threads live in two
// sparse sets indexed by pc; each keeps its own capture slots. Priority order
// is the order threads are added, which yields leftmost-first submatches.
#include "match/program.h"

#include <cstring>

namespace faultline {
namespace {

bool is_word_byte(uint8_t c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }

// A zero-width assertion at position `at` of the line.
bool assert_holds(uint32_t kind, const uint8_t *line, size_t len, size_t at) {
  switch (kind) {
    case kAssertLineStart:
      return at == 0;
    case kAssertLineEnd:
      return at == len;
    case kAssertWordBoundary:
    case kAssertNotWordBoundary: {
      bool before = at > 0 && is_word_byte(line[at - 1]);
      bool after = at < len && is_word_byte(line[at]);
      return (before != after) == (kind == kAssertWordBoundary);
    }
    default:
      return false;
  }
}

// One list of threads: dense[] in priority order, sparse[pc] -> index.
struct ThreadList {
  uint32_t *sparse;
  uint32_t *dense;
  int32_t *caps;  // slot_count per dense entry
  uint32_t size;

  bool contains(uint32_t pc) const {
    uint32_t i = sparse[pc];
    return i < size && dense[i] == pc;
  }
};

// Explicit stack frame for following epsilon edges without recursion: either
// "visit pc" or "restore slot to value" (undoing a Save on the way back).
struct Frame {
  uint32_t pc_or_slot;
  int32_t restore_value;
  uint32_t is_restore;
};

struct Vm {
  const ProgramView &p;
  const uint8_t *line;
  size_t len;
  Frame *stack;
  int32_t *work;  // current capture slots while following epsilons

  bool check_assert(uint32_t kind, size_t at) const { return assert_holds(kind, line, len, at); }

  // Adds pc and everything reachable from it by epsilon edges at position
  // `at`, with capture slots `work` (modified and restored in place).
  void add(ThreadList &list, uint32_t pc0, size_t at) {
    uint32_t top = 0;
    stack[top++] = Frame{pc0, 0, 0};
    while (top > 0) {
      Frame f = stack[--top];
      if (f.is_restore) {
        work[f.pc_or_slot] = f.restore_value;
        continue;
      }
      uint32_t pc = f.pc_or_slot;
      if (list.contains(pc)) continue;
      uint32_t idx = list.size++;
      list.sparse[pc] = idx;
      list.dense[idx] = pc;
      uint32_t w0 = p.insns[2 * pc], y = p.insns[2 * pc + 1];
      uint32_t x = insn_x(w0);
      switch (insn_op(w0)) {
        case kOpJump:
          stack[top++] = Frame{x, 0, 0};
          break;
        case kOpSplit:
          stack[top++] = Frame{y, 0, 0};  // pushed first: runs second
          stack[top++] = Frame{x, 0, 0};
          break;
        case kOpSave:
          stack[top++] = Frame{x, work[x], 1};
          work[x] = static_cast<int32_t>(at);
          stack[top++] = Frame{pc + 1, 0, 0};
          break;
        case kOpAssert:
          if (check_assert(x, at)) stack[top++] = Frame{pc + 1, 0, 0};
          break;
        default:
          // A consuming or matching instruction: the thread waits here with
          // a copy of the slots as they are now.
          std::memcpy(list.caps + static_cast<size_t>(idx) * p.slot_count, work, p.slot_count * sizeof(int32_t));
          break;
      }
    }
  }
};

bool consumes(const ProgramView &p, uint32_t w0, uint8_t c) {
  uint32_t x = insn_x(w0);
  switch (insn_op(w0)) {
    case kOpByte:
      return x == c;
    case kOpClass:
      return (p.classes[static_cast<size_t>(x) * 32 + c / 8] >> (c % 8)) & 1u;
    case kOpAny:
      return true;
    default:
      return false;
  }
}

}  // namespace

bool program_is_valid(const ProgramView &p) {
  if (p.insn_count == 0 || p.insn_count > kMaxProgramInsns || p.slot_count < 2 || p.slot_count % 2 != 0) return false;
  bool has_match = false;
  for (uint32_t pc = 0; pc < p.insn_count; pc++) {
    uint32_t w0 = p.insns[2 * pc], y = p.insns[2 * pc + 1];
    uint32_t x = insn_x(w0);
    switch (insn_op(w0)) {
      case kOpByte:
        if (x > 255) return false;
        break;
      case kOpClass:
        if (x >= p.class_count) return false;
        break;
      case kOpAny:
        break;
      case kOpSplit:
        if (x >= p.insn_count || y >= p.insn_count) return false;
        break;
      case kOpJump:
        if (x >= p.insn_count) return false;
        break;
      case kOpSave:
        if (x >= p.slot_count) return false;
        break;
      case kOpAssert:
        if (x >= kAssertCount) return false;
        break;
      case kOpMatch:
        has_match = true;
        break;
      default:
        return false;
    }
    // Falling through from a non-jumping instruction must stay in range.
    Op op = insn_op(w0);
    if (op != kOpJump && op != kOpSplit && op != kOpMatch && pc + 1 >= p.insn_count) return false;
  }
  return has_match;
}

static size_t align8(size_t n) { return (n + 7) & ~static_cast<size_t>(7); }

size_t pike_scratch_bytes(uint32_t max_insns, uint32_t max_slots) {
  size_t n = max_insns;
  size_t list = align8(2 * n * sizeof(uint32_t)) + align8(n * max_slots * sizeof(int32_t));
  // Each pc is visited once per add() and each Save pushes a restore frame,
  // plus a split pushes two: 3 frames per instruction bound the stack.
  size_t stack = align8(3 * (n + 1) * sizeof(Frame));
  return 2 * list + stack + align8(max_slots * sizeof(int32_t)) + kBitStateScratch;
}

namespace {

// The backtracker's stack: a thread to try (pc at pos), a capture slot to
// restore on the way back, or the exits of a greedy one-byte loop still to
// try (pc at pos, then at pos - 1, down to `low`).
enum JobKind : uint32_t { kJobThread, kJobRestore, kJobExits };
struct Job {
  uint32_t pc_or_slot;
  int32_t pos_or_value;
  uint32_t kind : 2;
  uint32_t low : 30;  // kJobExits: the last position to try (lines here are far shorter than 2^30)
};

// The one-byte loop a greedy split at `pc` repeats, if it is one: `x*` is
// "L: split L+1, out; L+1: byte; jump L" and `x+` is "L: byte; split L, out"
// (program_compiler.cpp). Returns the consuming instruction's pc, or -1.
int32_t greedy_byte_loop(const ProgramView &p, uint32_t pc) {
  const uint32_t x = insn_x(p.insns[2 * pc]);
  auto consuming = [&](uint32_t at) {
    const Op op = insn_op(p.insns[2 * at]);
    return op == kOpByte || op == kOpClass || op == kOpAny;
  };
  if (x == pc + 1 && pc + 2 < p.insn_count && consuming(pc + 1) && insn_op(p.insns[2 * (pc + 2)]) == kOpJump &&
      insn_x(p.insns[2 * (pc + 2)]) == pc)
    return static_cast<int32_t>(pc + 1);
  if (pc > 0 && x == pc - 1 && consuming(pc - 1)) return static_cast<int32_t>(pc - 1);
  return -1;
}

constexpr size_t kBitStateJobs = 4096;
static_assert(sizeof(Job) == 12, "kBitStateScratch in program.h reserves 4096 jobs of 12 bytes");

}  // namespace

bool bitstate_match(const ProgramView &p, const uint8_t *line, size_t len, void *scratch, int32_t *slots, bool *gave_up,
                    int64_t *work) {
  *gave_up = false;
  const uint32_t n = p.insn_count, ns = p.slot_count;
  const size_t positions = len + 1;
  if (static_cast<uint64_t>(n) * positions > kBitStateMaxStates) {
    *gave_up = true;
    return false;
  }
  // The visited bits are all clear between runs (the scratch starts zeroed):
  // each run notes the words it sets and clears just those on its way out,
  // so that a run costs what it visits, not the program's size times the line.
  uint64_t *visited = static_cast<uint64_t *>(scratch);
  uint32_t *set_words = reinterpret_cast<uint32_t *>(static_cast<uint8_t *>(scratch) + kBitStateMaxStates / 8);
  struct Cleanup {  // on every way out: the bits cleared, the budget written back
    uint64_t *visited;
    uint32_t *set_words;
    uint32_t set_count;
    int64_t *work;
    int64_t left;
    ~Cleanup() {
      for (uint32_t i = 0; i < set_count; i++) visited[set_words[i]] = 0;
      if (work) *work = left;
    }
  } run{visited, set_words, 0, work, work ? *work : INT64_MAX};
  Job *stack = reinterpret_cast<Job *>(set_words + kBitStateMaxStates / 64);
  int32_t *cap = reinterpret_cast<int32_t *>(stack + kBitStateJobs);
  const bool anchored =
      n >= 2 && insn_op(p.insns[0]) == kOpSave && insn_op(p.insns[2]) == kOpAssert && insn_x(p.insns[2]) == kAssertLineStart;
  int first_byte = -1;
  if (n >= 2 && insn_op(p.insns[0]) == kOpSave && insn_op(p.insns[2]) == kOpByte)
    first_byte = static_cast<int>(insn_x(p.insns[2]));
  // Starts in order, each explored depth-first in priority order: the first
  // Match reached is the leftmost-first match. A (pc, pos) explored once
  // failed and fails again from any later start, so it is never redone.
  const uint8_t *starts = p.start_bytes;
  // State (pc, pos) is bit pc * positions + pos.
  auto is_visited = [&](size_t bit) { return (visited[bit / 64] >> (bit % 64)) & 1u; };
  // Marks (pc, at) visited; false when it already was.
  auto visit = [&](uint32_t pc, size_t at) {
    const size_t bit = static_cast<size_t>(pc) * positions + at;
    if (is_visited(bit)) return false;
    if (!visited[bit / 64]) run.set_words[run.set_count++] = static_cast<uint32_t>(bit / 64);
    visited[bit / 64] |= uint64_t{1} << (bit % 64);
    return true;
  };
  // Marks the bits [lo, hi), none of which is set yet, a word at a time.
  auto mark_range = [&](size_t lo, size_t hi) {
    while (lo < hi) {
      const size_t w = lo / 64, room = 64 - lo % 64, bits = hi - lo < room ? hi - lo : room;
      const uint64_t mask = (bits == 64 ? ~uint64_t{0} : ((uint64_t{1} << bits) - 1)) << (lo % 64);
      if (!visited[w]) run.set_words[run.set_count++] = static_cast<uint32_t>(w);
      visited[w] |= mask;
      lo += bits;
    }
  };
  for (size_t start = 0; start <= len; start++) {
    if (first_byte >= 0) {
      const void *next = start < len ? std::memchr(line + start, first_byte, len - start) : nullptr;
      if (!next) return false;
      start = static_cast<size_t>(static_cast<const uint8_t *>(next) - line);
    } else if (starts && start > 0) {  // a match past 0 begins with one of these bytes (and consumes one)
      while (start < len && !((starts[line[start] / 8] >> (line[start] % 8)) & 1u)) start++;
      if (start == len) return false;
    }
    for (uint32_t s = 0; s < ns; s++) cap[s] = -1;
    uint32_t top = 0;
    stack[top++] = Job{0, static_cast<int32_t>(start), kJobThread, 0};
    while (top > 0) {
      Job job = stack[--top];
      if (job.kind == kJobRestore) {
        cap[job.pc_or_slot] = job.pos_or_value;
        continue;
      }
      uint32_t pc = job.pc_or_slot;
      size_t at = static_cast<size_t>(job.pos_or_value);
      if (job.kind == kJobExits && job.pos_or_value > static_cast<int32_t>(job.low))
        stack[top++] = Job{pc, job.pos_or_value - 1, kJobExits, job.low};
      for (;;) {
        if (!visit(pc, at)) break;
        if ((run.left -= kBitStateVisitWork) <= 0) {
          *gave_up = true;
          return false;
        }
        const uint32_t w0 = p.insns[2 * pc], x = insn_x(w0);
        const Op op = insn_op(w0);
        if (op == kOpByte || op == kOpClass || op == kOpAny) {
          if (at >= len || !consumes(p, w0, line[at])) break;
          pc++, at++;
          continue;
        }
        if (op == kOpJump) {
          pc = x;
          continue;
        }
        if (op == kOpMatch) {
          std::memcpy(slots, cap, ns * sizeof(int32_t));
          return true;
        }
        if (top + 1 >= kBitStateJobs) {  // deeper than the scratch: the Pike VM decides
          *gave_up = true;
          return false;
        }
        if (op == kOpSplit) {
          if (const int32_t body = greedy_byte_loop(p, pc); body >= 0) {
            // A greedy loop over single bytes ("[^\"]+", ".*"): run it to the
            // end of its bytes in one pass, then try its exit from the
            // longest run back to the shortest, as the split would one
            // position at a time. No capture changes inside the loop.
            const uint32_t w_body = p.insns[2 * body];
            const size_t from = at;
            // The split's states at the next positions are consecutive bits:
            // test them as the bytes are read, set them a word at a time.
            const size_t base = static_cast<size_t>(pc) * positions;
            while (at < len && consumes(p, w_body, line[at]) && !is_visited(base + at + 1)) at++;
            mark_range(base + from + 1, base + at + 1);
            if ((run.left -= kBitStateVisitWork * static_cast<int64_t>(at - from)) <= 0) {
              *gave_up = true;
              return false;
            }
            stack[top++] = Job{p.insns[2 * pc + 1], static_cast<int32_t>(at), kJobExits, static_cast<uint32_t>(from)};
            break;
          }
          stack[top++] = Job{p.insns[2 * pc + 1], static_cast<int32_t>(at), kJobThread, 0};
          pc = x;
          continue;
        }
        if (op == kOpSave) {
          stack[top++] = Job{x, cap[x], kJobRestore, 0};
          cap[x] = static_cast<int32_t>(at);
          pc++;
          continue;
        }
        // kOpAssert
        if (!assert_holds(x, line, len, at)) break;
        pc++;
      }
    }
    if (anchored) break;
  }
  return false;
}

bool pike_match(const ProgramView &p, const uint8_t *line, size_t len, void *scratch, int32_t *slots, int64_t *work,
                bool *out_of_work) {
  bool gave_up = false;
  const bool matched = bitstate_match(p, line, len, scratch, slots, &gave_up, work);
  if (!gave_up) return matched;
  if (work && *work <= 0) {
    if (out_of_work) *out_of_work = true;
    return false;
  }
  return pike_vm_match(p, line, len, scratch, slots, work, out_of_work);
}

bool pike_vm_match(const ProgramView &p, const uint8_t *line, size_t len, void *scratch, int32_t *slots, int64_t *work,
                   bool *out_of_work) {
  const uint32_t n = p.insn_count, ns = p.slot_count;
  uint8_t *mem = static_cast<uint8_t *>(scratch) + kBitStateScratch;
  auto take = [&mem](size_t bytes) {
    uint8_t *r = mem;
    mem += align8(bytes);
    return r;
  };
  ThreadList lists[2];
  for (auto &l : lists) {
    l.sparse = reinterpret_cast<uint32_t *>(take(2 * n * sizeof(uint32_t)));
    l.dense = l.sparse + n;
    l.caps = reinterpret_cast<int32_t *>(take(static_cast<size_t>(n) * ns * sizeof(int32_t)));
    l.size = 0;
  }
  Frame *stack = reinterpret_cast<Frame *>(take(3 * (n + 1) * sizeof(Frame)));
  int32_t *slots_now = reinterpret_cast<int32_t *>(take(ns * sizeof(int32_t)));

  Vm vm{p, line, len, stack, slots_now};
  ThreadList *cur = &lists[0], *next = &lists[1];
  bool matched = false;
  // An anchored program: no new attempts later, and the run ends when its threads do.
  const bool anchored = program_anchored(p);
  // When the program must begin with one byte (after its start Save), the
  // positions where no thread is alive can be skipped to that byte's next
  // occurrence: most lines reach the VM for one match somewhere in them.
  int first_byte = -1;
  if (n >= 2 && insn_op(p.insns[0]) == kOpSave && insn_op(p.insns[2]) == kOpByte)
    first_byte = static_cast<int>(insn_x(p.insns[2]));
  for (size_t at = 0; at <= len; at++) {
    if (cur->size == 0 && first_byte >= 0 && !matched && at > 0) {
      const void *next_start = at < len ? std::memchr(line + at, first_byte, len - at) : nullptr;
      if (!next_start) break;
      at = static_cast<size_t>(static_cast<const uint8_t *>(next_start) - line);
    }
    if (!matched && (at == 0 || !anchored)) {
      // A new attempt starting here, at lower priority than older threads.
      for (uint32_t s = 0; s < ns; s++) slots_now[s] = -1;
      vm.add(*cur, 0, at);
    }
    if (cur->size == 0) break;
    if (work && (*work -= kPikeStepWork * cur->size + 1) <= 0) {
      if (out_of_work) *out_of_work = true;
      return false;
    }
    next->size = 0;
    for (uint32_t i = 0; i < cur->size; i++) {
      uint32_t pc = cur->dense[i];
      uint32_t w0 = p.insns[2 * pc];
      const int32_t *caps = cur->caps + static_cast<size_t>(i) * ns;
      if (insn_op(w0) == kOpMatch) {
        std::memcpy(slots, caps, ns * sizeof(int32_t));
        matched = true;
        break;  // lower-priority threads lose to this match
      }
      if (at < len && consumes(p, w0, line[at])) {
        std::memcpy(slots_now, caps, ns * sizeof(int32_t));
        vm.add(*next, pc + 1, at + 1);
      }
    }
    ThreadList *t = cur;
    cur = next;
    next = t;
  }
  return matched;
}

}  // namespace faultline
