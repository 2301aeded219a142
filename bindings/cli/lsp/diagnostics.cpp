#include "diagnostics.h"

namespace lsp {

namespace {

// LSP DiagnosticSeverity
constexpr int kError = 1, kInformation = 3, kHint = 4;

std::string title_and_type(const json &item) {
  std::string out = text_field(item, "title");
  const std::string type = text_field(item, "type");
  if (!type.empty()) out += " (" + type + ")";
  return out;
}

std::string root_message(const json &report, const Flag &root) {
  const json &item = *root.item;
  std::string msg;
  if (text_field(report, "verdict") == "inconclusive") msg = "inconclusive, only collateral in these logs: ";
  msg += title_and_type(item);
  const std::string where = where_text(item);
  if (!where.empty()) msg += " on " + where;
  const auto action = report.find("action");
  if (action != report.end() && action->is_object()) {
    msg += ". Action: " + text_field(*action, "name");
    const std::string advice = text_field(*action, "advice");
    if (!advice.empty()) msg += ": " + advice;
  }
  if (!root.line_known) msg += ". (No single line of this document states it.)";
  const auto missing = report.find("missing_evidence");
  if (missing != report.end() && missing->is_array())
    for (const json &m : *missing)
      if (m.is_string()) msg += ". Missing: " + without_controls(m.get<std::string>());
  return msg;
}

std::string collateral_message(const Flag &f) {
  const json &item = *f.item;
  std::string msg = title_and_type(item);
  const auto ranks = item.find("ranks");
  if (ranks != item.end() && ranks->is_array() && !ranks->empty()) {
    msg += " on rank" + std::string(ranks->size() > 1 ? "s " : " ");
    bool first = true;
    for (const json &r : *ranks) {
      if (!r.is_number_integer()) continue;
      msg += (first ? "" : ", ") + std::to_string(r.get<int64_t>());
      first = false;
    }
  }
  const std::string reason = text_field(item, "reason");
  msg += f.kind == Flag::Kind::kCollateral ? ". Collateral: " + reason : ". Finding";
  if (f.kind == Flag::Kind::kFinding && !reason.empty()) msg += ": " + reason;
  return msg;
}

}  // namespace

json line_range(const TextDocument &doc, uint64_t line) {
  return json{{"start", {{"line", line}, {"character", 0}}},
              {"end", {{"line", line}, {"character", doc.line_utf16_length(line)}}}};
}

json diagnostics_for(const json &report, const std::string &source, const TextDocument &doc, const std::string &uri) {
  json out = json::array();
  const std::vector<Flag> flags = flags_in(report, source);
  const Flag *root = !flags.empty() && flags[0].kind == Flag::Kind::kRoot ? &flags[0] : nullptr;
  for (const Flag &f : flags) {
    json d = {{"range", line_range(doc, f.line)}, {"source", "faultline"}};
    const std::string id = text_field(*f.item, "id");
    if (!id.empty()) d["code"] = id;
    if (f.kind == Flag::Kind::kRoot) {
      d["severity"] = kError;
      d["message"] = root_message(report, f);
    } else {
      d["severity"] = f.kind == Flag::Kind::kCollateral ? kInformation : kHint;
      d["message"] = collateral_message(f);
      if (root && root->line_known)
        d["relatedInformation"] = json::array({{{"location", {{"uri", uri}, {"range", line_range(doc, root->line)}}},
                                                {"message", "the initiating failure: " + title_and_type(*root->item)}}});
    }
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace lsp
