// textDocument/hover on a flagged line: what the report says of that line
// (root or collateral, where, why) and the entry's encyclopedia page as
// Markdown, rendered by the pack that made the report.
#pragma once

#include <string>

#include "faultline.h"
#include "report_view.h"
#include "text_document.h"

namespace lsp {

// The Hover object for `line`, or null when the report flags nothing there.
json hover_at(const json &report, const std::string &source, const fl_pack *pack, const TextDocument &doc, uint64_t line);

// The encyclopedia page of entry `id` as Markdown, "" when the pack has none.
std::string entry_page_markdown(const fl_pack *pack, const std::string &id);

}  // namespace lsp
