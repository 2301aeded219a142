#include "report_view.h"

#include <string_view>

namespace lsp {

namespace {

// The 1-based `line` and `source` of an object, as 0-based line in `source`.
bool line_in(const json &obj, const std::string &source, uint64_t *line) {
  if (!obj.is_object()) return false;
  const auto s = obj.find("source"), l = obj.find("line");
  if (s == obj.end() || !s->is_string() || s->get<std::string>() != source) return false;
  if (l == obj.end() || !l->is_number_unsigned() || l->get<uint64_t>() == 0) return false;
  *line = l->get<uint64_t>() - 1;
  return true;
}

void add_entries(const json &report, const char *key, Flag::Kind kind, const std::string &source, std::vector<Flag> *out) {
  const auto list = report.find(key);
  if (list == report.end() || !list->is_array()) return;
  for (const json &item : *list) {
    const auto first = item.find("first");
    uint64_t line = 0;
    if (first != item.end() && line_in(*first, source, &line)) out->push_back(Flag{kind, line, true, &item});
  }
}

}  // namespace

std::vector<Flag> flags_in(const json &report, const std::string &source) {
  std::vector<Flag> out;
  if (!report.is_object()) return out;
  const auto root = report.find("root");
  if (root != report.end() && root->is_object()) {
    uint64_t line = 0;
    if (line_in(*root, source, &line))
      out.push_back(Flag{Flag::Kind::kRoot, line, true, &*root});
    else
      out.push_back(Flag{Flag::Kind::kRoot, 0, false, &*root});
  }
  add_entries(report, "collateral", Flag::Kind::kCollateral, source, &out);
  add_entries(report, "findings", Flag::Kind::kFinding, source, &out);
  return out;
}

std::string without_controls(const std::string &text, bool keep_newlines) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u == '\n' && keep_newlines)
      out += c;
    else if (u == '\t' || u == '\n')
      out += ' ';
    else if (u >= 0x20 && u != 0x7f)
      out += c;
  }
  return out;
}

std::string text_field(const json &obj, const char *key) {
  if (!obj.is_object()) return "";
  const auto v = obj.find(key);
  return v != obj.end() && v->is_string() ? without_controls(v->get<std::string>()) : "";
}

std::string markdown_escaped(const std::string &text) {
  std::string out;
  for (char c : without_controls(text)) {
    // Links, images, HTML and emphasis from a log must stay text.
    if (std::string_view("\\`*_{}[]()<>#+-.!|~&").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

std::string where_text(const json &obj) {
  std::string out;
  const auto rank = obj.find("rank");
  if (rank != obj.end() && rank->is_number_integer()) out = "rank " + std::to_string(rank->get<int64_t>());
  const std::string host = text_field(obj, "host");
  if (!host.empty()) out += (out.empty() ? "host " : ", host ") + host;
  return out;
}

}  // namespace lsp
