// `flc lint`: what compiles but should not ship: too few examples, patterns
// no example exercises, weak prefilter pieces, entries whose examples also
// fire other entries (overlap), insecure references, captures the diagnosis
// would misread, and ranks a matched example states but no rank capture holds.
#pragma once

#include <vector>

#include "diagnostic.h"
#include "match/pack_reader.h"
#include "signature.h"

namespace faultline {

void lint_signatures(const std::vector<Signature> &sigs, const PackView &pack, Diagnostics *diags);
void lint_framings(const std::vector<Framing> &framings, Diagnostics *diags);

}  // namespace faultline
