#include "external_taxonomy.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>

#include "signature_reader.h"
#include "taxonomy.h"

namespace fs = std::filesystem;

namespace faultline {

namespace {

class TaxonomyReader {
 public:
  TaxonomyReader(std::string file, Diagnostics *diags) : file_(std::move(file)), diags_(diags) {}

  bool read(const std::vector<Signature> &sigs, ExternalTaxonomy *t) {
    YAML::Node doc;
    try {
      doc = YAML::LoadFile(file_);
    } catch (const YAML::Exception &e) {
      error(SourcePos{e.mark.line + 1, e.mark.column + 1}, "YAML: " + e.msg);
      return false;
    }
    if (!doc.IsMap()) {
      error(SourcePos{1, 1}, "a taxonomy file is a YAML map (id, title, source, url, rows)");
      return false;
    }
    check_keys(doc, {"id", "title", "source", "url", "rows"});
    t->file = file_;
    t->id = text(doc, "id");
    t->title = text(doc, "title");
    t->source = text(doc, "source");
    t->url = text(doc, "url");
    if (fs::path(file_).stem().string() != t->id) error(pos(doc["id"]), "id differs from the file name");
    YAML::Node rows = doc["rows"];
    if (!rows || !rows.IsSequence() || rows.size() == 0) {
      error(pos(rows ? rows : doc), "'rows' must be a list of rows");
      return ok_;
    }
    std::set<std::string> ids, categories, names;
    for (const auto &s : sigs) {
      if (!s.deprecated) ids.insert(s.id);
      categories.insert(s.category);
    }
    for (const auto &r : rows) {
      if (!r.IsMap()) {
        error(pos(r), "a row is a map (name, detail, entries | categories | none, note)");
        continue;
      }
      check_keys(r, {"name", "detail", "entries", "categories", "none", "note"});
      ExternalRow row;
      row.pos = pos(r);
      row.name = text(r, "name");
      row.detail = text(r, "detail");
      if (r["none"]) row.none = text(r, "none");
      if (r["note"]) row.note = text(r, "note");
      row.entries = list(r, "entries");
      row.categories = list(r, "categories");
      if (!names.insert(row.name).second) error(row.pos, "duplicate row '" + row.name + "'");
      if (row.none.empty() == (row.entries.empty() && row.categories.empty()))
        error(row.pos, "row '" + row.name + "' needs entries or categories, or 'none' with the reason, not both");
      for (const auto &e : row.entries)
        if (!ids.count(e)) error(pos(r["entries"]), "row '" + row.name + "' names '" + e + "', which no entry defines");
      for (const auto &c : row.categories)
        if (!categories.count(c))
          error(pos(r["categories"]), "row '" + row.name + "' names category '" + c + "', which has no entry");
      t->rows.push_back(std::move(row));
    }
    return ok_;
  }

 private:
  std::string file_;
  Diagnostics *diags_;
  bool ok_ = true;

  static SourcePos pos(const YAML::Node &n) {
    if (!n.IsDefined() || n.Mark().is_null()) return {};
    return {n.Mark().line + 1, n.Mark().column + 1};
  }
  void error(SourcePos p, const std::string &msg) {
    diags_->error(Diagnostic{Diagnostic::kError, file_, p.line, p.col, "", msg, ""});
    ok_ = false;
  }
  void check_keys(const YAML::Node &m, const std::set<std::string> &known) {
    for (const auto &kv : m)
      if (!known.count(kv.first.as<std::string>()))
        error(pos(kv.first), "unknown field '" + kv.first.as<std::string>() + "' (see signatures/README.md)");
  }
  std::string text(const YAML::Node &m, const char *key) {
    YAML::Node v = m[key];
    if (!v || !v.IsScalar() || v.as<std::string>().empty()) {
      error(pos(v ? v : m), std::string("field '") + key + "' must be non-empty text");
      return "";
    }
    return v.as<std::string>();
  }
  std::vector<std::string> list(const YAML::Node &m, const char *key) {
    std::vector<std::string> out;
    YAML::Node v = m[key];
    if (!v) return out;
    if (!v.IsSequence()) {
      error(pos(v), std::string("field '") + key + "' must be a list");
      return out;
    }
    for (const auto &x : v)
      if (x.IsScalar())
        out.push_back(x.as<std::string>());
      else
        error(pos(x), std::string("items of '") + key + "' must be text");
    return out;
  }
};

std::string one_line(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  std::replace(s.begin(), s.end(), '|', '/');  // a table cell
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

}  // namespace

std::vector<ExternalTaxonomy> load_external_taxonomies(const std::string &root, const std::vector<Signature> &sigs,
                                                       Diagnostics *diags) {
  std::vector<ExternalTaxonomy> out;
  for (const auto &f : yaml_files_in((fs::path(root) / "taxonomies").string())) {
    ExternalTaxonomy t;
    TaxonomyReader r(f, diags);
    try {
      if (r.read(sigs, &t)) out.push_back(std::move(t));
    } catch (const YAML::Exception &e) {
      diags->error(Diagnostic{Diagnostic::kError, f, e.mark.line + 1, e.mark.column + 1, "", "YAML: " + e.msg, ""});
    }
  }
  return out;
}

std::string external_taxonomies_markdown(const std::vector<ExternalTaxonomy> &taxonomies, const std::vector<Signature> &sigs) {
  std::ostringstream o;
  for (const auto &t : taxonomies) {
    o << "\n## " << t.title << "\n\n"
      << "Source: " << one_line(t.source) << " <" << t.url << ">. Rows from `signatures/taxonomies/"
      << fs::path(t.file).filename().string() << "`.\n\n"
      << "| " << t.id << " | what it is | entries |\n|---|---|---|\n";
    size_t covered = 0;
    for (const auto &r : t.rows) {
      o << "| " << one_line(r.name) << " | " << one_line(r.detail) << " | ";
      if (!r.none.empty()) o << "none: " << one_line(r.none);
      bool first = true;
      for (const auto &e : r.entries) {
        o << (first ? "" : ", ") << "`" << e << "`";
        first = false;
      }
      for (const auto &c : r.categories) {
        size_t n = std::count_if(sigs.begin(), sigs.end(), [&](const Signature &s) { return s.category == c && !s.deprecated; });
        o << (first ? "" : ", ") << "all " << n << " entries of `" << c << "/`";
        first = false;
      }
      if (!r.note.empty()) o << " (" << one_line(r.note) << ")";
      o << " |\n";
      if (r.none.empty()) covered++;
    }
    o << "\n" << covered << " of " << t.rows.size() << " rows have entries.\n";
  }
  return o.str();
}

}  // namespace faultline
