// textDocument/publishDiagnostics from a report: the root line as an Error
// (entry title, type, rank and host, the action; code = entry id), each
// collateral entry's first line as Information with the reason the report
// gives (related to the root when it is in the same document), findings as
// Hints.
#pragma once

#include <string>

#include "report_view.h"
#include "text_document.h"

namespace lsp {

// The diagnostics array for the document `uri` (named `source` in the report).
json diagnostics_for(const json &report, const std::string &source, const TextDocument &doc, const std::string &uri);

// The range covering line `line` of `doc` (its text, without the break).
json line_range(const TextDocument &doc, uint64_t line);

}  // namespace lsp
