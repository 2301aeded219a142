// Reading signatures/ : YAML files into Signature records, with every
// structural error reported as file:line:col, then compiling each pattern
// (dialect parse, confirmation program, DFA pieces).
#pragma once

#include <string>
#include <vector>

#include "diagnostic.h"
#include "pieces.h"
#include "signature.h"

namespace faultline {

struct LoadOptions {
  PieceOptions pieces;
  // A site's library over a base (library.yaml base:): related/causes ids it
  // does not define are the base's, kept apart for the runtime to resolve.
  bool layered = false;
};

// Reads one file. `rel_path` is its path below the signatures root.
// Returns false (with diagnostics) when the file cannot become a signature.
bool read_signature_file(const std::string &path, const std::string &rel_path, const LoadOptions &opt, Signature *out,
                         Diagnostics *diags);

// Reads every *.yaml below `root` in sorted order (but framing/, taxonomies/ and library.yaml), then checks
// what spans files: unique ids, existing related/causes ids. Sorted by id.
std::vector<Signature> load_signatures(const std::string &root, const LoadOptions &opt, Diagnostics *diags);

// The *.yaml files directly in `dir`, sorted (none when it does not exist).
std::vector<std::string> yaml_files_in(const std::string &dir);

// Reads root/framing/*.yaml: the log-prefix formats. Sorted by id.
std::vector<Framing> load_framings(const std::string &root, const LoadOptions &opt, Diagnostics *diags);

// Reads the signatures root's PACK_VERSION file ("0.1.0" if absent).
std::string read_pack_version(const std::string &root);

}  // namespace faultline
