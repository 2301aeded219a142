// One signature as flc reads it from YAML: the encyclopedia page, its
// patterns and their compiled forms, and the source positions every later
// diagnostic points at.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pieces.h"
#include "program_compiler.h"
#include "regex_ast.h"

namespace faultline {

// Where a YAML value sits in its file.
struct SourcePos {
  int line = 0, col = 0;  // 1-based
};

struct Symptom {
  std::string observe, why;
};
struct CommandLine {
  std::string run, explain;
  SourcePos pos;
};
struct Verification {
  std::string run, expect;
  SourcePos pos;
};
struct Reference {
  std::string title, url;
};
struct VersionScope {
  std::string component, range, note;
};
// The fix as code for one stack (`code_examples:`).
struct CodeExample {
  std::string stack, language, code, why;
  SourcePos pos;
};
// An answer to one of the reader's questions (`answers:`); question indexes
// taxonomy::questions() (= fb::Question).
struct Answer {
  int question = 0;
  std::string text;
};

struct PatternDef {
  std::string name, regex, source;
  SourcePos pos;             // of the regex scalar
  int regex_col_offset = 0;  // columns between pos.col and the regex's first byte (the quote)
  // Filled by compilation:
  regex::Regex parsed;
  Program program;
  PatternPieces pieces;
};

struct MatchTest {
  std::string line;
  std::map<std::string, std::string> captures;
  SourcePos pos;
};

struct NoMatchTest {
  std::string line;
  SourcePos pos;
};

struct Signature {
  std::string file;      // path as given, for diagnostics
  std::string rel_path;  // relative to the signatures root, stored in the pack
  SourcePos id_pos;
  std::string id, title, category, type;
  bool deprecated = false;
  bool overrides = false;  // a site library's entry that replaces the base entry of this id
  SourcePos overrides_pos;
  std::vector<std::string> tags, affects;
  std::vector<VersionScope> versions;
  std::string summary, mechanism, root_cause, fingerprint;
  std::vector<Symptom> symptoms;
  std::vector<std::string> confirm, fix_steps, prevention;
  std::vector<CommandLine> fix_commands;  // runs with typed placeholders ({path:path})
  std::vector<Verification> verify;
  std::vector<CodeExample> code_examples;
  std::vector<Answer> answers;                           // sorted by question
  std::map<std::string, std::string> placeholder_types;  // `placeholders:` name -> value type
  std::vector<Reference> references;
  std::vector<std::string> related, causes;
  SourcePos related_pos, causes_pos;
  // A layered library's related/causes ids that only its base defines
  // (checked against the base pack by `flc compile --base`).
  std::vector<std::string> external_related, external_causes;
  std::string severity, action, role;
  std::string require = "any", scope = "rank";
  uint32_t min_count = 1;
  uint32_t context_required = 0, context_excluded = 0;  // fb::JobFact bits
  std::vector<PatternDef> patterns;
  std::vector<MatchTest> must_match;
  std::vector<NoMatchTest> must_not_match;
};

// A log-prefix format from signatures/framing/.
struct Framing {
  std::string file, rel_path;
  SourcePos id_pos;
  std::string id, title, description;
  std::vector<PatternDef> patterns;
  std::vector<MatchTest> must_match;
  std::vector<NoMatchTest> must_not_match;
};

}  // namespace faultline
