#include "code_actions.h"

namespace lsp {

namespace {

// Titles stay one short line; the command carries the whole text.
std::string short_title(const std::string &prefix, const std::string &text) {
  constexpr size_t kMax = 72;
  std::string t = without_controls(text);
  if (t.size() > kMax) {
    size_t cut = kMax;
    while (cut > 0 && (static_cast<unsigned char>(t[cut]) & 0xc0) == 0x80) cut--;  // not inside a UTF-8 sequence
    t = t.substr(0, cut) + "...";
  }
  return prefix + ": " + t;
}

json copy_action(const std::string &title, const std::string &text) {
  return json{{"title", title},
              {"kind", "quickfix"},
              {"command", {{"title", title}, {"command", kCopyTextCommand}, {"arguments", json::array({text})}}}};
}

// The `run` strings of report[key][...] (fix.commands or verify), unchanged.
void add_commands(const json &list, const char *what, json *out) {
  if (!list.is_array()) return;
  for (const json &c : list) {
    const auto run = c.is_object() ? c.find("run") : c.end();
    if (!c.is_object() || run == c.end() || !run->is_string()) continue;
    out->push_back(copy_action(short_title(what, run->get<std::string>()), run->get<std::string>()));
  }
}

}  // namespace

json code_actions_for(const json &report, const std::string &source, uint64_t first_line, uint64_t last_line) {
  json out = json::array();
  for (const Flag &f : flags_in(report, source)) {
    const uint64_t line = f.line_known ? f.line : 0;
    if (line < first_line || line > last_line) continue;
    if (f.kind == Flag::Kind::kRoot) {
      const auto fix = report.find("fix");
      if (fix != report.end() && fix->is_object() && fix->contains("commands"))
        add_commands((*fix)["commands"], "Copy fix command", &out);
      const auto verify = report.find("verify");
      if (verify != report.end()) add_commands(*verify, "Copy verification command", &out);
    }
    const std::string id = text_field(*f.item, "id");
    if (id.empty() || id == "unknown") continue;
    const std::string title = "Open entry page: " + id;
    out.push_back(json{{"title", title},
                       {"kind", "quickfix"},
                       {"command", {{"title", title}, {"command", kShowEntryCommand}, {"arguments", json::array({id})}}}});
  }
  return out;
}

}  // namespace lsp
