// XXH64 against published values (also what `xxhsum -H64` prints), and the
// Pike VM on cases whose leftmost-first answer is known by hand.
#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "common/hash.h"
#include "confirm_dfa.h"
#include "match/program.h"
#include "program_compiler.h"
#include "regex_parser.h"

using namespace faultline;

TEST_CASE("hash: xxh64 matches the reference implementation") {
  CHECK(xxh64("", 0) == 0xef46db3751d8e999ULL);
  CHECK(xxh64("abc", 3) == 0x44bc2cf5ad770999ULL);
  std::string x(100, 'x');  // exercises the 32-byte stripes and every tail
  CHECK(xxh64(x.data(), x.size()) == 0x92f0de5a88a3c094ULL);
}

namespace {

struct Run {
  bool matched;
  std::vector<int32_t> slots;
};

Run run(const std::string &pattern, const std::string &line) {
  regex::Regex re = regex::parse(pattern);
  Program prog = compile_program(re);
  // With the start bytes flc stores: the backtracker skips starts no match
  // can begin at, and must still agree with the Pike VM (which does not).
  const auto starts = program_start_bytes(prog);
  ProgramView v{prog.words.data(),
                prog.insn_count(),
                prog.classes.empty() ? nullptr : prog.classes[0].data(),
                static_cast<uint32_t>(prog.classes.size()),
                prog.slot_count,
                starts ? starts->data() : nullptr};
  REQUIRE(program_is_valid(v));
  std::vector<uint64_t> scratch(pike_scratch_bytes(v.insn_count, v.slot_count) / 8 + 1, 0);
  Run r;
  r.slots.assign(v.slot_count, -2);
  r.matched = pike_match(v, reinterpret_cast<const uint8_t *>(line.data()), line.size(), scratch.data(), r.slots.data());
  // The backtracker (what pike_match runs on short lines) and the Pike VM
  // must give the same match and the same captures.
  std::vector<int32_t> vm_slots(v.slot_count, -2);
  const bool vm = pike_vm_match(v, reinterpret_cast<const uint8_t *>(line.data()), line.size(), scratch.data(), vm_slots.data());
  CHECK(vm == r.matched);
  if (vm && r.matched) CHECK(vm_slots == r.slots);
  return r;
}

std::string group(const Run &r, const std::string &line, int g) {
  if (!r.matched || r.slots[2 * g] < 0) return "<unset>";
  return line.substr(r.slots[2 * g], r.slots[2 * g + 1] - r.slots[2 * g]);
}

}  // namespace

TEST_CASE("program: captures pull fields out of a real NCCL line") {
  std::string line =
      "[rank3]: Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1172, OpType=ALLREDUCE, Timeout(ms)=600000)";
  Run r = run("WorkNCCL\\(SeqNum=(?<seq>\\d+), OpType=(?<op>\\w+).*Timeout\\(ms\\)=(?<timeout_ms>\\d+)", line);
  REQUIRE(r.matched);
  CHECK(group(r, line, 1) == "1172");
  CHECK(group(r, line, 2) == "ALLREDUCE");
  CHECK(group(r, line, 3) == "600000");
}

TEST_CASE("program: leftmost-first, greedy and lazy") {
  CHECK(group(run("(?<a>a+)", "baaa"), "baaa", 1) == "aaa");
  CHECK(group(run("(?<a>a+?)", "baaa"), "baaa", 1) == "a");
  CHECK(group(run("(?<a>x|xy)", "xy"), "xy", 1) == "x");  // first alternative wins, not the longest
  CHECK(group(run("(?<a>a{2,3})", "aaaa"), "aaaa", 1) == "aaa");
  CHECK(group(run("(?<a>a{2,3}?)", "aaaa"), "aaaa", 1) == "aa");
}

TEST_CASE("program: anchors and word boundaries") {
  CHECK(run("^abc", "abc def").matched);
  CHECK_FALSE(run("^def", "abc def").matched);
  CHECK(run("def$", "abc def").matched);
  CHECK_FALSE(run("abc$", "abc def").matched);
  CHECK(run("\\bnan\\b", "loss: nan,").matched);
  CHECK_FALSE(run("\\bnan\\b", "nonfinite nanoseconds").matched);
  CHECK(run("\\Bnan", "financial").matched);
}

TEST_CASE("program: unset groups and empty iterations") {
  Run r = run("a(?<x>b)?c", "ac");
  CHECK(r.matched);
  CHECK(r.slots[2] == -1);
  // (x+)? for a nullable x: one empty iteration sets the group (RE2, Perl).
  Run e = run("(?<e>a?)*b", "b");
  CHECK(e.matched);
  CHECK(e.slots[2] == 0);
  CHECK(e.slots[3] == 0);
}

TEST_CASE("program: greedy one-byte loops (run in one pass by the backtracker) agree with the Pike VM") {
  // The traceback frame pattern's shape, then loops that stop at visited
  // states, share a run with a later loop, or end in '$': every line of a
  // small alphabet, so that each loop exits at every length.
  const std::vector<std::string> patterns = {
      "(?<frame>(?:File \"[^\"]+|^[^\"\\s]+\\.py)\", line \\d+, in .*)$",
      "(?<a>a*)(?<b>a*)b",
      "(?<a>[ab]*)b(?<c>.*)$",
      "x(?<a>a+)(?<b>a+)y",
      "(?<a>(?:a|ab)*)c",
      "(?<a>[^b]*?)b",
  };
  const std::string alphabet = "ab\"xy ";
  std::mt19937 rng(7);
  for (const auto &pattern : patterns)
    for (int i = 0; i < 400; i++) {
      std::string line;
      const size_t n = rng() % 24;
      for (size_t k = 0; k < n; k++) line += alphabet[rng() % alphabet.size()];
      INFO(pattern << " on '" << line << "'");
      run(pattern, line);  // checks the backtracker against the VM
    }
  const std::string frame = "  File \"/usr/lib/python3.10/site-packages/torch/nn/modules/module.py\", line 1511, in _call_impl";
  Run r = run("(?<frame>(?:File \"[^\"]+|^[^\"\\s]+\\.py)\", line \\d+, in .*)$", frame);
  REQUIRE(r.matched);
  CHECK(group(r, frame, 1) == frame.substr(2));
}

TEST_CASE("program: lines too long for the backtracker go to the Pike VM with the same result") {
  // 256K states: a 40-instruction program over 100 KB is far beyond them.
  const std::string line = std::string(100000, 'x') + " rank 12 nranks 64 cudaDev 3";
  Run r = run("rank (?<rank>\\d+) nranks (?<n>\\d+)", line);
  REQUIRE(r.matched);
  CHECK(group(r, line, 1) == "12");
  CHECK(group(r, line, 2) == "64");
}

TEST_CASE("program: the validator refuses out-of-range programs") {
  std::vector<uint32_t> words = {insn_word0(kOpJump, 5), 0, insn_word0(kOpMatch, 0), 0};
  ProgramView v{words.data(), 2, nullptr, 0, 2, nullptr};
  CHECK_FALSE(program_is_valid(v));  // jump past the end
  words[0] = insn_word0(kOpClass, 0);
  CHECK_FALSE(program_is_valid(v));  // no class table
  words[0] = insn_word0(kOpSave, 2);
  CHECK_FALSE(program_is_valid(v));  // slot 2 of 2
  words[0] = insn_word0(static_cast<Op>(200), 0);
  CHECK_FALSE(program_is_valid(v));  // unknown opcode
  words[0] = insn_word0(kOpByte, 'a');
  CHECK(program_is_valid(v));
  words[2] = insn_word0(kOpByte, 'b');
  CHECK_FALSE(program_is_valid(v));  // falls off the end, no match
}
