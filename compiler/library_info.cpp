#include "library_info.h"

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <set>

namespace fs = std::filesystem;

namespace faultline {

namespace {

SourcePos pos_of(const YAML::Node &n) { return SourcePos{n.Mark().line + 1, n.Mark().column + 1}; }

// "0.1.0" -> {0, 1, 0}; false for anything but dotted numbers.
bool parse_version(const std::string &s, std::vector<long> *out) {
  out->clear();
  size_t i = 0;
  while (i < s.size()) {
    size_t j = i;
    while (j < s.size() && s[j] >= '0' && s[j] <= '9') j++;
    if (j == i || j - i > 9) return false;
    out->push_back(std::strtol(s.substr(i, j - i).c_str(), nullptr, 10));
    if (j == s.size()) return true;
    if (s[j] != '.') return false;
    i = j + 1;
  }
  return false;
}

int compare_versions(std::vector<long> a, std::vector<long> b) {
  while (a.size() < b.size()) a.push_back(0);
  while (b.size() < a.size()) b.push_back(0);
  return a < b ? -1 : a > b ? 1 : 0;
}

std::string trim(const std::string &s) {
  size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

}  // namespace

bool version_in_range(const std::string &version, const std::string &range, bool *ok) {
  if (ok) *ok = false;
  std::vector<long> v, bound;
  if (!parse_version(version, &v) || trim(range).empty()) return false;
  bool holds = true;
  size_t start = 0;
  while (start <= range.size()) {
    size_t comma = range.find(',', start);
    if (comma == std::string::npos) comma = range.size();
    const std::string clause = trim(range.substr(start, comma - start));
    std::string op;
    for (const char *o : {">=", "<=", "==", ">", "<"})
      if (clause.rfind(o, 0) == 0) {
        op = o;
        break;
      }
    if (op.empty() || !parse_version(trim(clause.substr(op.size())), &bound)) return false;
    const int c = compare_versions(v, bound);
    holds = holds && (op == ">=" ? c >= 0 : op == "<=" ? c <= 0 : op == "==" ? c == 0 : op == ">" ? c > 0 : c < 0);
    start = comma + 1;
  }
  if (ok) *ok = true;
  return holds;
}

LibraryInfo read_library_info(const std::string &root, Diagnostics *diags) {
  LibraryInfo info;
  const fs::path path = fs::path(root) / "library.yaml";
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return info;
  info.file = path.string();
  auto error = [&](SourcePos p, const std::string &msg) {
    diags->error(Diagnostic{Diagnostic::kError, info.file, p.line, p.col, "", msg, ""});
  };
  try {
    const YAML::Node doc = YAML::LoadFile(info.file);
    if (!doc.IsMap()) {
      error(SourcePos{1, 1}, "library.yaml must be a map (name, base)");
      return info;
    }
    for (const auto &kv : doc) {
      const std::string key = kv.first.as<std::string>();
      if (key != "name" && key != "base") error(pos_of(kv.first), "unknown field '" + key + "' (fields: name, base)");
    }
    if (!doc["name"] || !doc["name"].IsScalar() || doc["name"].as<std::string>().empty())
      error(SourcePos{1, 1}, "library.yaml needs a name: the library's name, shown as the origin of its entries");
    else
      info.name = doc["name"].as<std::string>();
    for (char c : info.name)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'))
        error(pos_of(doc["name"]), "a library name holds letters, digits, '-', '_' and '.' only");
    if (const YAML::Node base = doc["base"]) {
      info.layered = true;
      info.base_pos = pos_of(base);
      if (!base.IsMap()) {
        error(info.base_pos, "base must be a map (name, versions, disables)");
        return info;
      }
      for (const auto &kv : base) {
        const std::string key = kv.first.as<std::string>();
        if (key != "name" && key != "versions" && key != "disables")
          error(pos_of(kv.first), "unknown field '" + key + "' under base (fields: name, versions, disables)");
      }
      if (base["name"] && base["name"].IsScalar()) info.base_name = base["name"].as<std::string>();
      if (info.base_name.empty()) error(info.base_pos, "base needs the name of the library it stands over (ours: faultline)");
      if (base["versions"] && base["versions"].IsScalar()) info.base_versions = base["versions"].as<std::string>();
      bool readable = false;
      version_in_range("0", info.base_versions, &readable);
      if (!readable)
        error(base["versions"] ? pos_of(base["versions"]) : info.base_pos,
              "base needs versions: the base pack versions this library was written for, e.g. \">=0.1.0,<0.2.0\"");
      if (const YAML::Node d = base["disables"]) {
        if (!d.IsSequence()) error(pos_of(d), "disables is a list of {id, why}");
        std::set<std::string> seen;
        for (const auto &x : d) {
          DisabledEntry e;
          e.pos = pos_of(x);
          if (x.IsMap() && x["id"] && x["id"].IsScalar()) e.id = x["id"].as<std::string>();
          if (x.IsMap() && x["why"] && x["why"].IsScalar()) e.why = x["why"].as<std::string>();
          if (e.id.empty() || e.why.empty()) {
            error(e.pos, "each disabled entry needs an id and why (the reason this site turns it off)");
            continue;
          }
          if (!seen.insert(e.id).second) error(e.pos, "'" + e.id + "' is disabled twice");
          info.disables.push_back(e);
        }
      }
    }
  } catch (const YAML::Exception &e) {
    diags->error(Diagnostic{Diagnostic::kError, info.file, e.mark.line + 1, e.mark.column + 1, "", "YAML: " + e.msg, ""});
  }
  return info;
}

void check_against_base(const LibraryInfo &info, const std::vector<Signature> &sigs, const PackView &base, Diagnostics *diags) {
  const std::string base_name = base.root->library_name() ? base.root->library_name()->str() : "";
  const std::string base_version = base.root->pack_version() ? base.root->pack_version()->str() : "";
  auto error = [&](const std::string &file, SourcePos p, const std::string &entry, const std::string &msg) {
    diags->error(Diagnostic{Diagnostic::kError, file, p.line, p.col, entry, msg, ""});
  };
  if (!info.layered) {
    error(info.file.empty() ? "library.yaml" : info.file, SourcePos{}, "",
          "--base needs a layered library: library.yaml with base: (name, versions)");
    return;
  }
  if (base_name != info.base_name)
    error(info.file, info.base_pos, "",
          "the base pack is the library '" + base_name + "', not '" + info.base_name + "' as base.name says");
  if (!version_in_range(base_version, info.base_versions))
    error(info.file, info.base_pos, "",
          "the base pack's version " + base_version + " is outside base.versions \"" + info.base_versions + "\"");
  std::set<std::string> base_ids, own_ids;
  for (uint32_t i = 0; i < base.entry_count(); i++) base_ids.insert(base.entry(i)->id()->str());
  for (const auto &s : sigs) own_ids.insert(s.id);
  const std::string who = "the base pack " + base_name + " " + base_version;
  for (const auto &s : sigs) {
    const bool in_base = base_ids.count(s.id) > 0;
    if (in_base && !s.overrides)
      error(s.file, s.id_pos, s.id,
            "'" + s.id + "' is also an entry of " + who + ": set `overrides: true` to replace it, or choose another id");
    if (!in_base && s.overrides)
      error(s.file, s.overrides_pos, s.id, "overrides: true, but " + who + " has no entry '" + s.id + "' to replace");
    for (const auto &id : s.external_related)
      if (!base_ids.count(id)) error(s.file, s.related_pos, s.id, "related names '" + id + "', which neither library defines");
    for (const auto &id : s.external_causes)
      if (!base_ids.count(id)) error(s.file, s.causes_pos, s.id, "causes names '" + id + "', which neither library defines");
  }
  for (const auto &d : info.disables) {
    if (!base_ids.count(d.id)) error(info.file, d.pos, "", "disables '" + d.id + "', which " + who + " does not define");
    if (own_ids.count(d.id))
      error(info.file, d.pos, "", "disables '" + d.id + "', which this library defines itself (drop one of the two)");
  }
}

}  // namespace faultline
