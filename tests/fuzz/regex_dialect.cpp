// The regex dialect of signatures/ (compiler/regex_parser.cpp) and what flc
// builds from a pattern: the confirmation program, the DFA pieces with their
// Ragel source, and the export for other engines. Input: the pattern, then
// optionally '\n' and a line to match. Invariants:
//  - a pattern is parsed or refused with regex::SyntaxError at an offset
//    inside it; anything the compiler refuses is one of its documented errors;
//  - every program flc compiles passes the runtime's program verifier (the
//    pack verifier would otherwise refuse the pack flc just built);
//  - the backtracker and the Pike VM give the same match and captures
//    (libcore/match/program.h), and pike_match (which picks one) agrees.
#include <string>
#include <string_view>

#include "confirm_dfa.h"
#include "fuzz_common.h"
#include "match/program.h"
#include "pieces.h"
#include "program_compiler.h"
#include "regex_export.h"
#include "regex_parser.h"

using namespace faultline;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view input(reinterpret_cast<const char *>(data), size);
  const size_t nl = input.find('\n');
  const std::string_view pattern = input.substr(0, nl);
  std::string_view line = nl == std::string_view::npos ? std::string_view() : input.substr(nl + 1);
  line = line.substr(0, line.find('\n'));  // a line never holds '\n'

  regex::Regex re;
  try {
    re = regex::parse(pattern);
  } catch (const regex::SyntaxError &e) {
    FUZZ_CHECK(e.pos <= pattern.size());
    FUZZ_CHECK(e.what()[0] != '\0');
    return 0;
  }
  FUZZ_CHECK(re.root != nullptr);
  (void)regex::min_length(*re.root);
  (void)regex::nullable(*re.root);
  (void)export_regex(re);
  // In flc's order (signature_reader.cpp): a pattern whose program is too
  // large is refused before its pieces are written out for Ragel (nested
  // counted repetition expands to millions of copies there).
  Program prog;
  try {
    prog = compile_program(re);
  } catch (const ProgramTooLarge &) {
    return 0;
  }
  try {
    PatternPieces pp = split_pattern(re, PieceOptions{});
    for (const Piece &p : pp.pieces) (void)piece_to_ragel(p);
  } catch (const NoPieces &) {
    // A pattern with nothing specific to look for: flc reports it.
  }
  FUZZ_CHECK(prog.insn_count() <= kMaxProgramSize);
  FUZZ_CHECK(prog.slot_count == 2 * (re.capture_names.size() + 1));
  // With the start bytes flc stores: the backtracker skips starts no match
  // can begin at, and must still agree with the Pike VM (which does not).
  const auto starts = program_start_bytes(prog);
  ProgramView v{prog.words.data(),
                prog.insn_count(),
                prog.classes.empty() ? nullptr : prog.classes[0].data(),
                static_cast<uint32_t>(prog.classes.size()),
                prog.slot_count,
                starts ? starts->data() : nullptr};
  FUZZ_CHECK(program_is_valid(v));

  std::vector<uint64_t> scratch(pike_scratch_bytes(v.insn_count, v.slot_count) / 8 + 1);
  const auto *bytes = reinterpret_cast<const uint8_t *>(line.data());
  std::vector<int32_t> bt(v.slot_count, -2), vm(v.slot_count, -2), any(v.slot_count, -2);
  bool gave_up = false;
  const bool bt_match = bitstate_match(v, bytes, line.size(), scratch.data(), bt.data(), &gave_up);
  const bool vm_match = pike_vm_match(v, bytes, line.size(), scratch.data(), vm.data());
  const bool any_match = pike_match(v, bytes, line.size(), scratch.data(), any.data());
  FUZZ_CHECK(any_match == vm_match);
  if (vm_match) FUZZ_CHECK(any == vm);
  if (!gave_up) {
    FUZZ_CHECK(bt_match == vm_match);
    if (vm_match) FUZZ_CHECK(bt == vm);
  }
  return 0;
}
