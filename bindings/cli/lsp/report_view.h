// The lines of a document a JSON report (faultline.report/2) flags: the
// root's, and the first line of each collateral entry and finding, when they
// are in this document. Everything shown to the user comes from the report,
// which already removed ANSI sequences and replaced invalid UTF-8; what is
// shown is still cleaned of control characters here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"

namespace lsp {

using json = nlohmann::json;

struct Flag {
  enum class Kind { kRoot, kCollateral, kFinding };
  Kind kind = Kind::kRoot;
  uint64_t line = 0;           // 0-based
  bool line_known = true;      // false: a root no single line states (shown on the first line)
  const json *item = nullptr;  // the report's root, collateral or finding object
};

// The flags of the source `source`, root first.
std::vector<Flag> flags_in(const json &report, const std::string &source);

// A string field of `obj`, "" when absent or not a string, without control characters.
std::string text_field(const json &obj, const char *key);
// The text without control characters (line breaks too unless kept).
std::string without_controls(const std::string &text, bool keep_newlines = false);
// The text with Markdown's special characters escaped (for log-derived values).
std::string markdown_escaped(const std::string &text);
// "rank 5, host node-b" from an object's rank and host ("" when neither is known).
std::string where_text(const json &obj);

}  // namespace lsp
