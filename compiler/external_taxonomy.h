// Other people's failure taxonomies (signatures/taxonomies/*.yaml): NVRx's
// failure classes, the Llama 3 interruption table. Each row names the entries
// that diagnose it, whole categories of them, or says why none can. flc reads
// them with the signatures, checks every name, and flc coverage renders them.
#pragma once

#include <string>
#include <vector>

#include "diagnostic.h"
#include "signature.h"

namespace faultline {

struct ExternalRow {
  std::string name, detail;
  std::vector<std::string> entries, categories;
  std::string none;  // why no entry can diagnose it (instead of entries/categories)
  std::string note;
  SourcePos pos;
};

struct ExternalTaxonomy {
  std::string file, id, title, source, url;
  std::vector<ExternalRow> rows;
};

// Reads root/taxonomies/*.yaml (sorted) and checks each row against `sigs`:
// listed entries and categories must exist. Errors go to `diags`.
std::vector<ExternalTaxonomy> load_external_taxonomies(const std::string &root, const std::vector<Signature> &sigs,
                                                       Diagnostics *diags);

// The tables as Markdown, one section per taxonomy.
std::string external_taxonomies_markdown(const std::vector<ExternalTaxonomy> &taxonomies, const std::vector<Signature> &sigs);

}  // namespace faultline
