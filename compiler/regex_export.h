// Patterns in the syntax other engines read (Hyperscan/Vectorscan, RE2,
// PCRE) with the same meaning line by line: what the benchmark's baselines
// match with. Every byte set is written out as an explicit class without
// '\n' (so no match spans lines, whatever the engine's defaults for `\s`,
// `[^x]` or `.`), captures become plain groups, lazy repetitions greedy (the
// same lines match), and repetitions at either end that cannot change whether
// a line matches are dropped (`X.*`, `\S*$` ... keep `X`, fewer reports).
// Read with byte semantics: Hyperscan without HS_FLAG_UTF8 and with
// HS_FLAG_MULTILINE; RE2 with Latin-1 encoding, one line at a time.
#pragma once

#include <string>

#include "regex_ast.h"

namespace faultline {

std::string export_regex(const regex::Regex &re);

}  // namespace faultline
