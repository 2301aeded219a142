// The confirmation DFA (compiler/confirm_dfa.cpp) must decide exactly what
// the pattern's program decides, and RE2 with it: on the lines real patterns
// meet, on lines made to sit on the edges of the assertions (^, $, \b, \B),
// and on random lines over the patterns' own bytes.
#include "confirm_dfa.h"

#include <doctest/doctest.h>
#include <re2/re2.h>

#include <random>
#include <string>
#include <vector>

#include "match/dfa.h"
#include "match/program.h"
#include "program_compiler.h"
#include "regex_export.h"
#include "regex_parser.h"

namespace {

using namespace faultline;

struct Compiled {
  Program prog;
  DfaTables tables;
  std::vector<uint8_t> trans8;
  std::vector<uint16_t> trans16;
  DfaView view;
};

void compile(const std::string &pattern, Compiled *c) {
  const regex::Regex re = regex::parse(pattern);
  c->prog = compile_program(re);
  const auto t = build_confirm_dfa(c->prog);
  REQUIRE_MESSAGE(t.has_value(), "no DFA for " << pattern);
  c->tables = *t;
  DfaView &v = c->view;
  v.state_count = t->state_count;
  v.class_count = t->class_count;
  v.start = t->start;
  v.accept_base = t->accept_base;
  v.class_map = c->tables.class_map.data();
  if (t->state_count <= 0x100) {
    c->trans8.assign(t->trans.begin(), t->trans.end());
    v.width = 1, v.trans = c->trans8.data();
  } else {
    c->trans16.assign(t->trans.begin(), t->trans.end());
    v.width = 2, v.trans = c->trans16.data();
  }
  v.accept_offsets = c->tables.accept_offsets.data();
  v.accepts = c->tables.accepts.data();
}

bool program_matches(const Program &prog, const std::string &line) {
  ProgramView v{prog.words.data(),
                prog.insn_count(),
                prog.classes.empty() ? nullptr : prog.classes[0].data(),
                static_cast<uint32_t>(prog.classes.size()),
                prog.slot_count,
                nullptr};
  std::vector<uint64_t> scratch(pike_scratch_bytes(v.insn_count, v.slot_count) / 8 + 1, 0);
  std::vector<int32_t> slots(v.slot_count);
  return pike_vm_match(v, reinterpret_cast<const uint8_t *>(line.data()), line.size(), scratch.data(), slots.data());
}

void check_line(const std::string &pattern, const Compiled &c, const RE2 &re, const std::string &line) {
  const bool dfa = dfa_decides(c.view, reinterpret_cast<const uint8_t *>(line.data()), line.size());
  const bool prog = program_matches(c.prog, line);
  const bool ref = RE2::PartialMatch(line, re);
  CHECK_MESSAGE(dfa == prog, pattern << " on \"" << line << "\": DFA " << dfa << ", program " << prog);
  CHECK_MESSAGE(dfa == ref, pattern << " on \"" << line << "\": DFA " << dfa << ", RE2 " << ref);
}

struct Case {
  std::string pattern;
  std::vector<std::string> lines;
};

const std::vector<Case> &cases() {
  static const std::vector<Case> all = {
      // Gaps the piece DFAs leave out, and their captures.
      {R"x((?<frame>(?:File "[^"]+|^[^"\s]+\.py)", line \d+, in .*)$)x",
       {R"(  File "/x/run.py", line 12, in main)", R"(pkg/mod.py", line 3, in f)", R"(x pkg/mod.py", line 3, in f)",
        R"(File "a.py", line x, in f)", R"(File "", line 1, in f)", ""}},
      {R"x((?:File "[^"]*|^[^"\s]*)[/\\](?:torch[/\\]serialization|checkpointing)\.py", line \d+, in \w+$)x",
       {R"(  File "/usr/lib/torch/serialization.py", line 3, in load)",
        R"(  File "/w/run_pretraining.py", line 2046, in <module>)", R"(D:\x\torch\serialization.py", line 9, in load)",
        R"(  File "/m/checkpointing.py", line 1, in load x)"}},
      {R"(NCCL INFO (?:\w+ )?(?:comm 0x[0-9a-fA-F]+ )?rank (?<r>\d+) nranks (?<n>\d+)(?: |$))",
       {"h:1:2 [0] NCCL INFO comm 0x55d rank 3 nranks 8 cudaDev 3 - Init COMPLETE", "NCCL INFO rank 3 nranks 8",
        "NCCL INFO rank 3 nranks 8x", "NCCL INFO Trees [0] 1/-1/-1->0->-1",
        "NCCL INFO ncclCommInitRank comm 0x1 rank 0 nranks 2 x"}},
      // Anchors: the start only at position 0, the end only at the end.
      {R"(^Killed$)", {"Killed", " Killed", "Killed ", "xKilled", "Killed\tKilled", ""}},
      {R"(^(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception)(?:: .*)?$)",
       {"RuntimeError: boom", "torch.OutOfMemoryError: CUDA out of memory", "  RuntimeError: x", "ValueError", "Error: x",
        "a.b.KeyError: 'k'", "x RuntimeError: y"}},
      // Word boundaries decide on the byte after the position too.
      {R"(\bnan\b)", {"loss nan", "loss=nan,", "nanosecond", "banana", "nan", "x_nan", "(nan)", "loss: nan"}},
      {R"(\Bnan)", {"nan", "banana", "loss nan", "xnan"}},
      {R"(step \d+\b.*\bloss\b)", {"step 12 loss 1.0", "step 12x loss", "step 1 gloss", "step 3, loss", "step 3loss"}},
      // Alternations with a gap in one branch, optional parts, counted repeats.
      {R"((?:Bootstrap ?: Using|NET/Socket : Using)(?: |.*[ \]])(?:(?:docker\d*|lo):\S+|[a-z][0-9a-z]*:172\.(?:1[6-9]|2\d|3[01])\.))",
       {"NCCL INFO Bootstrap : Using eth0:192.168.0.137<0>", "NCCL INFO NET/Socket : Using [0]lo:127.0.0.1<0>",
        "NCCL INFO Bootstrap : Using [0]ib0:10.148.8.41<0> [1]docker0:172.17.0.1<0>", "Bootstrap: Using eth0:172.20.3.4<0>",
        "Bootstrap : Using eth0:172.32.0.1<0>"}},
      {R"(Tried to allocate (?<size>\d+(?:\.\d+)? [KMG]iB) \(GPU (?<dev>\d+);)",
       {"Tried to allocate 20.00 MiB (GPU 0; 15.78 GiB total)", "Tried to allocate 20 MiB (GPU x;",
        "Tried to allocate 2.5 TiB (GPU 1;"}},
      {R"(x{2,4}y)", {"xy", "xxy", "xxxxy", "xxxxxy", "xxxxx", "axxyb"}},
  };
  return all;
}

}  // namespace

TEST_CASE("confirm DFA: decides what the program and RE2 decide") {
  for (const Case &k : cases()) {
    Compiled c;
    compile(k.pattern, &c);
    const regex::Regex parsed = regex::parse(k.pattern);
    RE2 re(export_regex(parsed));
    REQUIRE_MESSAGE(re.ok(), k.pattern);
    for (const std::string &line : k.lines) check_line(k.pattern, c, re, line);
  }
}

TEST_CASE("confirm DFA: random lines over each pattern's own bytes") {
  std::mt19937 rng(20261206);
  for (const Case &k : cases()) {
    Compiled c;
    compile(k.pattern, &c);
    RE2 re(export_regex(regex::parse(k.pattern)));
    std::string alphabet = " _.:/\\\"()[]x0";
    for (const std::string &l : k.lines) alphabet += l;
    for (int i = 0; i < 400; i++) {
      // Pieces of the example lines joined with random bytes of them: near
      // misses as often as matches.
      std::string line;
      const int parts = 1 + static_cast<int>(rng() % 4);
      for (int p = 0; p < parts; p++) {
        if (!k.lines.empty() && rng() % 2) {
          const std::string &src = k.lines[rng() % k.lines.size()];
          const size_t a = src.empty() ? 0 : rng() % src.size();
          line += src.substr(a, rng() % (src.size() - a + 1));
        }
        for (int b = static_cast<int>(rng() % 4); b > 0; b--) line += alphabet[rng() % alphabet.size()];
      }
      check_line(k.pattern, c, re, line);
    }
  }
}

TEST_CASE("confirm DFA: a pattern whose DFA would be too large gets none") {
  // (a|b)*a(a|b){12}: the classic exponential DFA.
  const Program prog = compile_program(regex::parse("[ab]*a[ab]{12}c"));
  CHECK_FALSE(build_confirm_dfa(prog, 256).has_value());
  CHECK(build_confirm_dfa(compile_program(regex::parse("a[ab]{2}c")), 256).has_value());
}

TEST_CASE("start bytes: the bytes a match can begin with past position 0") {
  auto starts = [](const std::string &pattern) { return program_start_bytes(compile_program(regex::parse(pattern))); };
  auto has = [](const std::array<uint8_t, 32> &bits, char c) {
    return ((bits[static_cast<uint8_t>(c) / 8] >> (static_cast<uint8_t>(c) % 8)) & 1u) != 0;
  };
  const auto frame = starts(R"x((?:File "[^"]+|^[^"\s]+\.py)", line)x");
  REQUIRE(frame.has_value());
  CHECK(has(*frame, 'F'));
  CHECK_FALSE(has(*frame, 'x'));  // the other branch starts only at position 0
  const auto alt = starts(R"((?:ab|\bcd|e?f))");
  REQUIRE(alt.has_value());
  CHECK((has(*alt, 'a') && has(*alt, 'c') && has(*alt, 'e') && has(*alt, 'f')));
  CHECK_FALSE(has(*alt, 'b'));
  CHECK_FALSE(starts(".*x").has_value());  // any byte may start it
  CHECK_FALSE(starts("x?").has_value());   // the empty match
}
