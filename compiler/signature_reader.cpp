#include "signature_reader.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "common/limits.h"
#include "common/value_type.h"
#include "common/vocabulary.h"
#include "program_compiler.h"
#include "regex_parser.h"
#include "taxonomy.h"

namespace fs = std::filesystem;

namespace faultline {
namespace {

// Fields a signature may have; anything else is a typo worth an error.
const std::set<std::string> kKnownKeys = {
    "id",         "deprecated",  "title",        "category",      "type",    "tags",       "severity", "affects",
    "versions",   "summary",     "mechanism",    "symptoms",      "confirm", "root_cause", "fix",      "verify",
    "prevention", "fingerprint", "references",   "related",       "action",  "role",       "causes",   "patterns",
    "condition",  "tests",       "placeholders", "code_examples", "answers", "overrides",
};

// Names a fix or verify command may use besides the entry's captures: the
// framing fields every report carries.

class FileReader {
 public:
  FileReader(std::string path, const LoadOptions &opt, Diagnostics *diags) : path_(std::move(path)), opt_(opt), diags_(diags) {
    std::ifstream f(path_);
    std::string l;
    while (std::getline(f, l)) lines_.push_back(l);
  }

  bool read(const std::string &rel_path, Signature *s);

 private:
  std::string path_;
  const LoadOptions &opt_;
  Diagnostics *diags_;
  std::vector<std::string> lines_;
  std::string entry_;
  bool ok_ = true;

  SourcePos pos(const YAML::Node &n) const {
    if (!n.IsDefined()) return {};  // a missing key: Mark() would throw InvalidNode
    YAML::Mark m = n.Mark();
    if (m.is_null()) return {};
    return {m.line + 1, m.column + 1};
  }
  std::string line_text(int line) const { return line >= 1 && line <= static_cast<int>(lines_.size()) ? lines_[line - 1] : ""; }

  void error(SourcePos p, const std::string &msg) {
    diags_->error(Diagnostic{Diagnostic::kError, path_, p.line, p.col, entry_, msg, line_text(p.line)});
    ok_ = false;
  }
  void error(const YAML::Node &n, const std::string &msg) { error(pos(n), msg); }

  // A required non-empty string field of map `m`.
  std::string text(const YAML::Node &m, const char *key, bool required = true) {
    YAML::Node v = m[key];
    if (!v) {
      if (required) error(m, std::string("missing field '") + key + "'");
      return "";
    }
    if (!v.IsScalar()) {
      error(v, std::string("field '") + key + "' must be text");
      return "";
    }
    std::string s = v.as<std::string>();
    check_not_placeholder(v, key, s);
    return s;
  }

  void check_not_placeholder(const YAML::Node &n, const std::string &key, const std::string &s) {
    std::string trimmed = s;
    trimmed.erase(0, trimmed.find_first_not_of(" \t\n"));
    trimmed.erase(trimmed.find_last_not_of(" \t\n") + 1);
    static const std::set<std::string> placeholders = {"", "...", "TODO", "TBD", "FIXME", "XXX", "N/A", "tbd", "todo"};
    if (placeholders.count(trimmed))
      error(n, "field '" + key + "' is empty or a placeholder");
    else if (trimmed.find("TODO") != std::string::npos || trimmed.find("FIXME") != std::string::npos)
      error(n, "field '" + key + "' contains a TODO/FIXME");
  }

  std::vector<std::string> text_list(const YAML::Node &m, const char *key, size_t min_items, bool required = true) {
    std::vector<std::string> out;
    YAML::Node v = m[key];
    if (!v) {
      if (required) error(m, std::string("missing field '") + key + "'");
      return out;
    }
    if (!v.IsSequence()) {
      error(v, std::string("field '") + key + "' must be a list");
      return out;
    }
    for (const auto &item : v) {
      if (!item.IsScalar()) {
        error(item, std::string("items of '") + key + "' must be text");
        continue;
      }
      out.push_back(item.as<std::string>());
      check_not_placeholder(item, key, out.back());
    }
    if (out.size() < min_items)
      error(v, std::string("field '") + key + "' needs at least " + std::to_string(min_items) + " item(s)");
    return out;
  }

  template <typename F>
  void map_list(const YAML::Node &m, const char *key, size_t min_items, F &&each, bool required = true) {
    YAML::Node v = m[key];
    if (!v) {
      if (required) error(m, std::string("missing field '") + key + "'");
      return;
    }
    if (!v.IsSequence()) {
      error(v, std::string("field '") + key + "' must be a list");
      return;
    }
    size_t count = 0;
    for (const auto &item : v) {
      if (!item.IsMap()) {
        error(item, std::string("items of '") + key + "' must be maps");
        continue;
      }
      each(item);
      count++;
    }
    if (count < min_items) error(v, std::string("field '") + key + "' needs at least " + std::to_string(min_items) + " item(s)");
  }

  std::string closed_word(const YAML::Node &m, const char *key, const std::vector<std::string_view> &allowed) {
    std::string w = text(m, key);
    if (!w.empty() && taxonomy::index_of(allowed, w) < 0) {
      std::string list;
      for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      error(m[key], std::string("'") + w + "' is not a valid " + key + " (one of: " + list + ")");
    }
    return w;
  }

  // condition.requires / condition.unless: job facts, as fb::JobFact bits.
  uint32_t job_facts(const YAML::Node &c, const char *key) {
    uint32_t bits = 0;
    for (const std::string &w : text_list(c, key, 1, false)) {
      const int i = taxonomy::index_of(taxonomy::job_facts(), w);
      if (i < 0)
        error(c[key], "'" + w + "' is not a job fact (one of: multi-node, single-node, completed-after)");
      else
        bits |= 1u << i;
    }
    return bits;
  }

  void check_keys(const YAML::Node &m, const std::set<std::string> &known, const char *what) {
    std::set<std::string> seen;
    for (const auto &kv : m) {
      std::string k = kv.first.as<std::string>();
      if (!seen.insert(k).second) error(kv.first, "duplicate field '" + k + "'");
      if (!known.count(k)) error(kv.first, "unknown field '" + k + "' in " + what + " (see signatures/README.md)");
    }
  }

  // Parses the file; false (with an error) unless it is a YAML map.
  bool load_document(YAML::Node *doc, const char *what) {
    try {
      *doc = YAML::LoadFile(path_);
    } catch (const YAML::Exception &e) {
      error(SourcePos{e.mark.line + 1, e.mark.column + 1}, "YAML: " + e.msg);
      return false;
    }
    if (!doc->IsMap()) {
      error(SourcePos{1, 1}, std::string("a ") + what + " is a YAML map of fields");
      return false;
    }
    return true;
  }

  // Reads `id`: kebab-case and equal to the file name.
  std::string read_id(const YAML::Node &doc, const std::string &rel_path, SourcePos *id_pos) {
    std::string id = text(doc, "id");
    *id_pos = pos(doc["id"]);
    entry_ = id;
    static const std::regex id_re("[a-z0-9]+(-[a-z0-9]+)*");
    fs::path p(rel_path);
    if (!id.empty() && !std::regex_match(id, id_re)) error(doc["id"], "id must be lower-case kebab-case");
    if (!id.empty() && p.stem().string() != id)
      error(doc["id"], "id '" + id + "' differs from the file name '" + p.filename().string() + "'");
    return id;
  }

  // Column of byte `index` of a scalar that starts at `start` (1-based), by
  // re-reading its raw text: quotes and escapes shift columns.
  int column_of(SourcePos start, size_t index) const {
    std::string raw = line_text(start.line);
    size_t i = static_cast<size_t>(start.col - 1);
    if (i >= raw.size()) return start.col;
    char quote = raw[i] == '\'' || raw[i] == '"' ? raw[i] : 0;
    if (quote) i++;
    for (size_t k = 0; k < index && i < raw.size(); k++) {
      if (quote == '\'' && raw[i] == '\'' && i + 1 < raw.size() && raw[i + 1] == '\'')
        i += 2;
      else if (quote == '"' && raw[i] == '\\')
        i += 2;
      else
        i++;
    }
    return static_cast<int>(i) + 1;
  }

  void read_patterns(const YAML::Node &doc, Signature *s);
  void read_tests(const YAML::Node &doc, Signature *s);

 public:
  bool read_framing(const std::string &rel_path, Framing *f);

 private:
  void read_placeholder_types(const YAML::Node &doc, Signature *s);
  void read_page_extras(const YAML::Node &doc, Signature *s);
  std::string typed_placeholders(const Signature &s, const std::string &run, SourcePos p, std::set<std::string> *used);
};

void FileReader::read_patterns(const YAML::Node &doc, Signature *s) {
  std::set<std::string> names;
  map_list(doc, "patterns", 1, [&](const YAML::Node &p) {
    PatternDef def;
    def.name = text(p, "name");
    def.source = text(p, "source");
    YAML::Node rx = p["regex"];
    if (!rx || !rx.IsScalar()) {
      error(p, "pattern needs a 'regex' (text)");
      return;
    }
    def.regex = rx.as<std::string>();
    def.pos = pos(rx);
    static const std::regex ident("[a-z_][a-z0-9_]*");
    if (!def.name.empty() && !std::regex_match(def.name, ident)) error(p["name"], "pattern name must match [a-z_][a-z0-9_]*");
    if (!names.insert(def.name).second) error(p["name"], "duplicate pattern name '" + def.name + "'");
    try {
      def.parsed = regex::parse(def.regex);
      def.program = compile_program(def.parsed);
      def.pieces = split_pattern(def.parsed, opt_.pieces);
      // The runtime refuses a pack beyond these (common/limits.h): say so here, at the pattern.
      if (def.parsed.capture_names.size() > kMaxCaptures)
        throw std::runtime_error("more than " + std::to_string(kMaxCaptures) + " named captures");
      if (def.pieces.pieces.size() > kMaxPiecesPerPattern)
        throw std::runtime_error("more than " + std::to_string(kMaxPiecesPerPattern) +
                                 " pieces (literal runs between .* gaps): split it into several patterns");
    } catch (const regex::SyntaxError &e) {
      bool one_line = def.regex.find('\n') == std::string::npos;
      error(SourcePos{def.pos.line, one_line ? column_of(def.pos, e.pos) : def.pos.col},
            "pattern '" + def.name + "': " + e.what());
      return;
    } catch (const std::exception &e) {
      error(rx, "pattern '" + def.name + "': " + e.what());
      return;
    }
    s->patterns.push_back(std::move(def));
  });
  if (s->patterns.size() > kMaxPatternsPerEntry)
    error(doc["patterns"], "more than " + std::to_string(kMaxPatternsPerEntry) + " patterns in one entry");
}

void FileReader::read_tests(const YAML::Node &doc, Signature *s) {
  YAML::Node tests = doc["tests"];
  if (!tests) {
    error(doc, "missing field 'tests'");
    return;
  }
  if (!tests.IsMap()) {
    error(tests, "'tests' must be a map with 'match' and 'no_match'");
    return;
  }
  std::set<std::string> capture_names;
  for (const auto &p : s->patterns)
    for (const auto &n : p.parsed.capture_names) capture_names.insert(n);
  YAML::Node m = tests["match"], nm = tests["no_match"];
  if (!m || !m.IsSequence())
    error(tests, "'tests.match' must be a list of lines");
  else
    for (const auto &item : m) {
      MatchTest t;
      t.pos = pos(item);
      if (item.IsScalar()) {
        t.line = item.as<std::string>();
      } else if (item.IsMap() && item["line"] && item["line"].IsScalar()) {
        t.line = item["line"].as<std::string>();
        t.pos = pos(item["line"]);
        if (YAML::Node caps = item["captures"]) {
          if (!caps.IsMap())
            error(caps, "'captures' must map capture names to expected text");
          else
            for (const auto &kv : caps) {
              std::string name = kv.first.as<std::string>();
              if (!capture_names.count(name)) error(kv.first, "no pattern of this entry captures '" + name + "'");
              t.captures[name] = kv.second.as<std::string>();
            }
        }
      } else {
        error(item, "a match test is a line, or a map with 'line' and optional 'captures'");
        continue;
      }
      if (t.line.find('\n') != std::string::npos) error(item, "a test line must not contain a newline");
      s->must_match.push_back(std::move(t));
    }
  if (!nm || !nm.IsSequence())
    error(tests, "'tests.no_match' must be a list of lines");
  else
    for (const auto &item : nm) {
      if (!item.IsScalar()) {
        error(item, "a no_match test is a line of text");
        continue;
      }
      s->must_not_match.push_back(NoMatchTest{item.as<std::string>(), pos(item)});
    }
}

// `placeholders:` maps each capture a command uses to the type of value it
// must be (common/value_type.h); {rank} and {host} are typed by the report.
void FileReader::read_placeholder_types(const YAML::Node &doc, Signature *s) {
  const YAML::Node m = doc["placeholders"];
  if (!m) return;
  if (!m.IsMap()) {
    error(m, "'placeholders' must map each placeholder a command uses to its type (number, size, hostname, identifier, path)");
    return;
  }
  for (const auto &kv : m) {
    const std::string name = kv.first.as<std::string>();
    const std::string type = kv.second.IsScalar() ? kv.second.as<std::string>() : "";
    const ValueType t = value_type_named(type.data(), type.size());
    if (t == ValueType::kUnknown)
      error(kv.second, "placeholder '" + name + "' has type '" + type + "': use number, size, hostname, identifier or path");
    else if (t == ValueType::kText)
      error(kv.second, "placeholder '" + name + "' is free text, which never goes into a command: give it a narrower type");
    else if (name == kPlaceholderRank || name == kPlaceholderHost)
      error(kv.first, "{" + name + "} is typed by the report (number, hostname): do not declare it");
    else
      s->placeholder_types[name] = type;
  }
}

// The command with each {name} written as {name:type}; an error for a name
// that is no capture of the entry, or has no declared type.
std::string FileReader::typed_placeholders(const Signature &s, const std::string &run, SourcePos p, std::set<std::string> *used) {
  std::set<std::string> known{kPlaceholderRank, kPlaceholderHost};
  for (const auto &pat : s.patterns)
    for (const auto &n : pat.parsed.capture_names) known.insert(n);
  std::string out;
  for (size_t i = 0; i < run.size(); i++) {
    out += run[i];
    if (run[i] != '{' || (i > 0 && run[i - 1] == '$')) continue;
    size_t j = i + 1;
    while (j < run.size() && (std::islower(static_cast<unsigned char>(run[j])) ||
                              std::isdigit(static_cast<unsigned char>(run[j])) || run[j] == '_'))
      j++;
    if (j == i + 1 || j >= run.size() || run[j] != '}' || std::isdigit(static_cast<unsigned char>(run[i + 1]))) continue;
    std::string name = run.substr(i + 1, j - i - 1);
    std::string type = name == kPlaceholderRank ? "number" : name == kPlaceholderHost ? "hostname" : "";
    if (type.empty()) {
      auto t = s.placeholder_types.find(name);
      if (t != s.placeholder_types.end()) type = t->second;
    }
    if (!known.count(name))
      error(p, "placeholder {" + name + "} is neither a capture of this entry nor one of {rank}, {host}");
    else if (type.empty())
      error(p, "placeholder {" + name +
                   "} has no type: declare it under 'placeholders:' (number, size, hostname, identifier, path)");
    used->insert(name);
    out += name + ":" + (type.empty() ? "text" : type) + "}";
    i = j;
  }
  return out;
}

bool FileReader::read_framing(const std::string &rel_path, Framing *f) {
  YAML::Node doc;
  if (!load_document(&doc, "framing file")) return false;
  f->file = path_;
  f->rel_path = rel_path;
  f->id = read_id(doc, rel_path, &f->id_pos);
  check_keys(doc, {"id", "title", "description", "patterns", "tests"}, "a framing file");
  f->title = text(doc, "title");
  f->description = text(doc, "description");
  Signature tmp;  // patterns and tests are read as for signatures
  read_patterns(doc, &tmp);
  read_tests(doc, &tmp);
  for (const auto &p : tmp.patterns)
    for (const auto &name : p.parsed.capture_names) {
      bool ok = name == kFramingLevel;
      std::string fields = kFramingLevel;
      for (const char *field : kFrameFieldNames) {
        ok = ok || name == field;
        fields += (fields.empty() ? "" : ", ") + std::string(field);
      }
      if (!ok) error(p.pos, "framing captures only frame fields (" + fields + "), not '" + name + "'");
    }
  f->patterns = std::move(tmp.patterns);
  f->must_match = std::move(tmp.must_match);
  f->must_not_match = std::move(tmp.must_not_match);
  return ok_;
}

// `code_examples:` (the fix as code per stack) and `answers:` (the reader's
// questions): both optional, both closed vocabularies.
void FileReader::read_page_extras(const YAML::Node &doc, Signature *s) {
  std::set<std::string> stacks;
  map_list(
      doc, "code_examples", 1,
      [&](const YAML::Node &c) {
        check_keys(c, {"stack", "language", "code", "why"}, "a code example");
        CodeExample ex{closed_word(c, "stack", taxonomy::code_stacks()), "python", text(c, "code"), text(c, "why"), pos(c)};
        if (c["language"]) ex.language = closed_word(c, "language", taxonomy::code_languages());
        if (!ex.stack.empty() && !stacks.insert(ex.stack).second)
          error(c["stack"], "a second code example for stack '" + ex.stack + "': one per stack");
        s->code_examples.push_back(std::move(ex));
      },
      false);
  YAML::Node a = doc["answers"];
  if (!a) return;
  if (!a.IsMap()) {
    error(a, "'answers' must map questions (hardware_or_software, fix_time, affects_inference, cheapest_confirm) to text");
    return;
  }
  for (const auto &kv : a) {
    const std::string q = kv.first.as<std::string>();
    const int i = taxonomy::index_of(taxonomy::questions(), q);
    if (i < 0) {
      error(kv.first,
            "'" + q + "' is not a question (one of: hardware_or_software, fix_time, affects_inference, cheapest_confirm)");
      continue;
    }
    if (std::any_of(s->answers.begin(), s->answers.end(), [&](const Answer &x) { return x.question == i; })) {
      error(kv.first, "duplicate answer '" + q + "'");
      continue;
    }
    s->answers.push_back(Answer{i, text(a, q.c_str())});
  }
  std::sort(s->answers.begin(), s->answers.end(), [](const Answer &x, const Answer &y) { return x.question < y.question; });
}

bool FileReader::read(const std::string &rel_path, Signature *s) {
  YAML::Node doc;
  if (!load_document(&doc, "signature file")) return false;
  s->file = path_;
  s->rel_path = rel_path;
  s->id = read_id(doc, rel_path, &s->id_pos);
  check_keys(doc, kKnownKeys, "a signature");
  fs::path p(rel_path);
  if (YAML::Node d = doc["deprecated"]) {
    if (!d.IsScalar() || (d.as<std::string>() != "true" && d.as<std::string>() != "false"))
      error(d, "'deprecated' must be true or false");
    else
      s->deprecated = d.as<std::string>() == "true";
  }
  if (YAML::Node o = doc["overrides"]) {
    s->overrides_pos = pos(o);
    if (!o.IsScalar() || (o.as<std::string>() != "true" && o.as<std::string>() != "false"))
      error(o, "'overrides' must be true or false");
    else
      s->overrides = o.as<std::string>() == "true";
  }
  s->title = text(doc, "title");
  s->category = closed_word(doc, "category", taxonomy::categories());
  std::string folder = p.has_parent_path() ? p.parent_path().filename().string() : "";
  if (!s->category.empty() && folder != s->category)
    error(doc["category"], "category '" + s->category + "' but the file is in folder '" + folder + "'");
  s->type = closed_word(doc, "type", taxonomy::types());
  s->tags = text_list(doc, "tags", 1);
  s->severity = closed_word(doc, "severity", taxonomy::severities());
  s->affects = text_list(doc, "affects", 1);
  map_list(
      doc, "versions", 0,
      [&](const YAML::Node &v) {
        s->versions.push_back(VersionScope{text(v, "component"), text(v, "range"), text(v, "note", false)});
      },
      false);
  s->summary = text(doc, "summary");
  s->mechanism = text(doc, "mechanism");
  map_list(doc, "symptoms", 1, [&](const YAML::Node &v) { s->symptoms.push_back(Symptom{text(v, "observe"), text(v, "why")}); });
  s->confirm = text_list(doc, "confirm", 1);
  s->root_cause = text(doc, "root_cause");
  if (YAML::Node fix = doc["fix"]; fix && fix.IsMap()) {
    s->fix_steps = text_list(fix, "steps", 1);
    map_list(fix, "commands", 1, [&](const YAML::Node &c) {
      s->fix_commands.push_back(CommandLine{text(c, "run"), text(c, "explain"), pos(c["run"])});
    });
  } else {
    error(fix ? fix : doc, "'fix' must be a map with 'steps' and 'commands'");
  }
  map_list(doc, "verify", 1, [&](const YAML::Node &c) {
    s->verify.push_back(Verification{text(c, "run"), text(c, "expect"), pos(c["run"])});
  });
  s->prevention = text_list(doc, "prevention", 1);
  read_page_extras(doc, s);
  s->fingerprint = text(doc, "fingerprint");
  map_list(doc, "references", 1, [&](const YAML::Node &r) {
    Reference ref{text(r, "title"), text(r, "url")};
    if (!ref.url.empty() && ref.url.rfind("https://", 0) != 0 && ref.url.rfind("http://", 0) != 0)
      error(r["url"], "reference url must be an http(s) URL");
    s->references.push_back(ref);
  });
  s->related = text_list(doc, "related", 0);
  s->related_pos = pos(doc["related"]);
  s->causes = text_list(doc, "causes", 0);
  s->causes_pos = pos(doc["causes"]);
  s->action = closed_word(doc, "action", taxonomy::actions());
  s->role = closed_word(doc, "role", taxonomy::roles());
  if (YAML::Node c = doc["condition"]) {
    if (!c.IsMap()) {
      error(c, "'condition' must be a map");
    } else {
      if (c["require"]) {
        s->require = text(c, "require");
        if (s->require != "any" && s->require != "all") error(c["require"], "condition.require is 'any' or 'all'");
      }
      if (c["scope"]) {
        s->scope = text(c, "scope");
        if (s->scope != "rank" && s->scope != "job") error(c["scope"], "condition.scope is 'rank' or 'job'");
      }
      if (YAML::Node mc = c["min_count"]) {
        try {
          int v = mc.as<int>();
          if (v < 1 || v > 1000000) throw YAML::Exception(mc.Mark(), "range");
          s->min_count = static_cast<uint32_t>(v);
        } catch (const YAML::Exception &) {
          error(mc, "condition.min_count must be a whole number from 1 to 1000000");
        }
      }
      s->context_required = job_facts(c, "requires");
      s->context_excluded = job_facts(c, "unless");
      if (s->context_required & s->context_excluded)
        error(c, "a job fact cannot be both in condition.requires and condition.unless");
      for (const auto &kv : c) {
        std::string k = kv.first.as<std::string>();
        if (k != "require" && k != "scope" && k != "min_count" && k != "requires" && k != "unless")
          error(kv.first, "unknown condition field '" + k + "'");
      }
    }
  }
  read_patterns(doc, s);
  read_tests(doc, s);
  read_placeholder_types(doc, s);
  std::set<std::string> used;
  for (auto &c : s->fix_commands) c.run = typed_placeholders(*s, c.run, c.pos, &used);
  for (auto &v : s->verify) v.run = typed_placeholders(*s, v.run, v.pos, &used);
  for (const auto &kv : s->placeholder_types)
    if (!used.count(kv.first)) error(doc["placeholders"], "placeholder '" + kv.first + "' is declared but no command uses it");
  return ok_;
}

}  // namespace

namespace {

// yaml-cpp throws when a node of another kind is converted (a list as a key,
// a map as a capture's expected text): an error at its position, not an
// exception out of flc.
template <typename F>
bool reported(const std::string &path, Diagnostics *diags, F &&read) {
  try {
    return read();
  } catch (const YAML::Exception &e) {
    diags->error(Diagnostic{Diagnostic::kError, path, e.mark.line + 1, e.mark.column + 1, "", "YAML: " + e.msg, ""});
    return false;
  }
}

}  // namespace

bool read_signature_file(const std::string &path, const std::string &rel_path, const LoadOptions &opt, Signature *out,
                         Diagnostics *diags) {
  FileReader r(path, opt, diags);
  return reported(path, diags, [&] { return r.read(rel_path, out); });
}

std::vector<Signature> load_signatures(const std::string &root, const LoadOptions &opt, Diagnostics *diags) {
  std::vector<std::string> files;
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    diags->error(Diagnostic{Diagnostic::kError, root, 0, 0, "", "not a directory of signatures", ""});
    return {};
  }
  for (auto it = fs::recursive_directory_iterator(root, ec); it != fs::recursive_directory_iterator(); ++it) {
    if (it->is_directory() && (it->path().filename() == "framing" || it->path().filename() == "taxonomies")) {
      it.disable_recursion_pending();  // prefix formats (load_framings), other taxonomies (load_external_taxonomies)
      continue;
    }
    if (it.depth() == 0 && it->path().filename() == "library.yaml") continue;  // the library's own (read_library_info)
    if (it->is_regular_file() && it->path().extension() == ".yaml") files.push_back(it->path().string());
  }
  std::sort(files.begin(), files.end());

  std::vector<Signature> sigs;
  for (const auto &f : files) {
    Signature s;
    if (read_signature_file(f, fs::relative(f, root).generic_string(), opt, &s, diags)) sigs.push_back(std::move(s));
  }
  std::sort(sigs.begin(), sigs.end(), [](const Signature &a, const Signature &b) { return a.id < b.id; });

  std::map<std::string, const Signature *> by_id;
  for (const auto &s : sigs) {
    auto [it, fresh] = by_id.emplace(s.id, &s);
    if (!fresh)
      diags->error(Diagnostic{Diagnostic::kError, s.file, s.id_pos.line, s.id_pos.col, s.id,
                              "duplicate id: also defined in " + it->second->file, ""});
  }
  // In a layered library, ids it does not define are its base's: kept apart
  // (the pack stores them by id) and checked by `flc compile --base`.
  auto check_refs = [&](const Signature &s, std::vector<std::string> *ids, std::vector<std::string> *external, SourcePos p,
                        const char *field) {
    std::vector<std::string> own;
    for (const auto &id : *ids) {
      if (id == s.id)
        diags->error(
            Diagnostic{Diagnostic::kError, s.file, p.line, p.col, s.id, std::string(field) + " names the entry itself", ""});
      else if (by_id.count(id))
        own.push_back(id);
      else if (opt.layered)
        external->push_back(id);
      else
        diags->error(Diagnostic{Diagnostic::kError, s.file, p.line, p.col, s.id,
                                std::string(field) + " names '" + id + "', which no signature defines", ""});
    }
    if (opt.layered) *ids = own;
  };
  for (auto &s : sigs) {
    if (s.overrides && !opt.layered)
      diags->error(Diagnostic{Diagnostic::kError, s.file, s.overrides_pos.line, s.overrides_pos.col, s.id,
                              "overrides: true needs a base library to override (library.yaml base:)", ""});
    check_refs(s, &s.related, &s.external_related, s.related_pos, "related");
    check_refs(s, &s.causes, &s.external_causes, s.causes_pos, "causes");
  }
  return sigs;
}

std::vector<std::string> yaml_files_in(const std::string &dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto &e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file() && e.path().extension() == ".yaml") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<Framing> load_framings(const std::string &root, const LoadOptions &opt, Diagnostics *diags) {
  const std::vector<std::string> files = yaml_files_in((fs::path(root) / "framing").string());
  std::vector<Framing> out;
  std::set<std::string> ids;
  for (const auto &f : files) {
    Framing fr;
    FileReader r(f, opt, diags);
    if (!reported(f, diags, [&] { return r.read_framing(fs::relative(f, root).generic_string(), &fr); })) continue;
    if (!ids.insert(fr.id).second)
      diags->error(Diagnostic{Diagnostic::kError, fr.file, fr.id_pos.line, fr.id_pos.col, fr.id, "duplicate framing id", ""});
    out.push_back(std::move(fr));
  }
  return out;
}

std::string read_pack_version(const std::string &root) {
  std::ifstream f(fs::path(root) / "PACK_VERSION");
  std::string v;
  if (!(f >> v)) return "0.1.0";
  return v;
}

}  // namespace faultline
