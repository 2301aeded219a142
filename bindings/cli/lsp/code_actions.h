// textDocument/codeAction on flagged lines. On the root's line: one action
// per fix command and per verification command, with the text exactly as the
// report renders it (its safe placeholder substitution: nothing from the log
// is put into a command here), as the client-side command faultline.copyText;
// on any flagged line, "Open entry page" (faultline.showEntry).
#pragma once

#include <string>

#include "report_view.h"

namespace lsp {

constexpr const char *kCopyTextCommand = "faultline.copyText";
constexpr const char *kShowEntryCommand = "faultline.showEntry";

// The CodeAction array for lines [first_line, last_line].
json code_actions_for(const json &report, const std::string &source, uint64_t first_line, uint64_t last_line);

}  // namespace lsp
