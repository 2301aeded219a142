// `flc test`: every entry's embedded examples run against the compiled pack
// with the runtime's own matcher, so a pack that ships is a pack whose
// examples pass.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "diagnostic.h"
#include "match/pack_reader.h"
#include "signature.h"

namespace faultline {

// A byte range of a line: [begin, end).
struct Span {
  size_t begin = 0, end = 0;
};

// What matched one line: pattern index -> captured fields (name -> text),
// and where in the line each match and each of its set captures lies.
struct LineMatches {
  std::map<uint32_t, std::map<std::string, std::string>> patterns;
  std::map<uint32_t, Span> matched;
  std::map<uint32_t, std::map<std::string, Span>> capture_spans;
};

// Runs the pack's matcher over one line (framing patterns included when
// `frame_always`, as if some entry matched).
LineMatches match_line(const PackView &pack, const std::string &line, bool frame_always = false);

struct TestSummary {
  size_t lines = 0, failures = 0;
};

// Checks every must-match / must-not-match line of `sigs` against `pack`
// (which must have been built from them) and adds an error per failure.
TestSummary run_signature_tests(const std::vector<Signature> &sigs, const PackView &pack, Diagnostics *diags);

// The same for the framing formats (signatures/framing/).
TestSummary run_framing_tests(const std::vector<Framing> &framings, const PackView &pack, Diagnostics *diags);

// Prefixes stack in any order: behind the leading prefix of every other
// framing format's example, each framing example must give the same frame
// (its own fields, plus the outer prefix's fields it does not set).
TestSummary run_framing_composition(const std::vector<Framing> &framings, const PackView &pack, Diagnostics *diags);

}  // namespace faultline
