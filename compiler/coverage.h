// The coverage table (signatures/COVERAGE.md): failure types x entries, and
// which labeled real logs each entry explains.
#pragma once

#include <string>
#include <vector>

#include "match/pack_reader.h"
#include "signature.h"

namespace faultline {

// A folder of labeled logs: labels.jsonl lines with "file" and "class".
struct LabeledSet {
  std::string dir;    // as given on the command line (printed in the table)
  std::string label;  // short name for the set, e.g. "eval"
};

// Markdown of the coverage of `sigs` (compiled into `pack`) over `sets`.
// `command` is the command line that regenerates it. Throws on unreadable labels.
std::string coverage_markdown(const std::vector<Signature> &sigs, const PackView &pack, const std::vector<LabeledSet> &sets,
                              const std::string &command);

}  // namespace faultline
