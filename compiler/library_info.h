// A signature library's own description, `library.yaml` at its root: its
// name, and for a site's library the base library it stands over (ours),
// the base versions it was written for and the base entries it turns off.
// And the checks of a site library against the base pack it targets.
#pragma once

#include <string>
#include <vector>

#include "diagnostic.h"
#include "match/pack_reader.h"
#include "signature.h"

namespace faultline {

struct DisabledEntry {
  std::string id, why;
  SourcePos pos;
};

struct LibraryInfo {
  std::string file;      // "" when the library has no library.yaml
  std::string name;      // "" when not given
  bool layered = false;  // has a `base:`
  std::string base_name, base_versions;
  SourcePos base_pos;
  std::vector<DisabledEntry> disables;
};

// Reads root/library.yaml (absent: a library named "" without a base).
// Errors go to `diags` with file:line.
LibraryInfo read_library_info(const std::string &root, Diagnostics *diags);

// Whether `version` (dotted numbers, "0.1.0") satisfies `range`: clauses
// joined by ',' each an operator (>=, >, <=, <, ==) and a version, all of
// which must hold. An unreadable range or version never satisfies; `*ok`
// (when given) says whether both were readable.
bool version_in_range(const std::string &version, const std::string &range, bool *ok = nullptr);

// A site library against the base pack it stands over: the base's name and
// version, ids it defines again without `overrides: true`, overrides and
// disables of ids the base lacks, related/causes ids neither defines.
void check_against_base(const LibraryInfo &info, const std::vector<Signature> &sigs, const PackView &base, Diagnostics *diags);

}  // namespace faultline
