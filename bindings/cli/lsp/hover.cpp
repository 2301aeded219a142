#include "hover.h"

#include <cstdint>
#include <vector>

#include "diagnostics.h"

namespace lsp {

std::string entry_page_markdown(const fl_pack *pack, const std::string &id) {
  const uint32_t index = pack ? fl_pack_find_entry(pack, id.c_str()) : UINT32_MAX;
  if (index == UINT32_MAX) return "";
  const size_t n = fl_pack_entry_page(pack, index, FL_PAGE_MARKDOWN, nullptr, 0);
  if (n == 0) return "";
  std::vector<char> page(n + 1);
  fl_pack_entry_page(pack, index, FL_PAGE_MARKDOWN, page.data(), page.size());
  return without_controls(std::string(page.data(), n), true);
}

namespace {

std::string heading(const Flag &f) {
  const json &item = *f.item;
  std::string out = "**faultline: ";
  out += f.kind == Flag::Kind::kRoot ? "the initiating failure" : f.kind == Flag::Kind::kCollateral ? "collateral" : "finding";
  out += "** `" + text_field(item, "id") + "`";
  // Where: from the root itself, or from a collateral entry's first line.
  const auto first = item.find("first");
  const std::string where = where_text(f.kind == Flag::Kind::kRoot || first == item.end() ? item : *first);
  if (!where.empty()) out += " on " + markdown_escaped(where);
  out += "\n\n";
  if (f.kind != Flag::Kind::kRoot) {
    const std::string reason = text_field(item, "reason");
    if (!reason.empty()) out += "Why collateral: " + markdown_escaped(reason) + "\n\n";
  }
  return out;
}

}  // namespace

json hover_at(const json &report, const std::string &source, const fl_pack *pack, const TextDocument &doc, uint64_t line) {
  std::string value;
  for (const Flag &f : flags_in(report, source)) {
    if (f.line != line || (!f.line_known && f.kind == Flag::Kind::kRoot && line != 0)) continue;
    if (!value.empty()) value += "\n\n---\n\n";
    value += heading(f);
    const std::string id = text_field(*f.item, "id");
    const std::string page = entry_page_markdown(pack, id);
    if (!page.empty())
      value += page;
    else  // an unknown failure: no page, the report's own words
      value += markdown_escaped(text_field(*f.item, "title"));
  }
  if (value.empty()) return nullptr;
  return json{{"contents", {{"kind", "markdown"}, {"value", value}}}, {"range", line_range(doc, line)}};
}

}  // namespace lsp
