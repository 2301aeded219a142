// YAML errors: each names the file, the line and column of the offending
// value, and the entry, so authors can jump to it.
#include "signature_reader.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "external_taxonomy.h"

namespace fs = std::filesystem;
using namespace faultline;

namespace {

// A complete, valid entry; tests replace one line to break it.
const char kValid[] = R"(id: demo-entry
title: "Demo failure"
category: memory
type: cuda_oom
tags: [demo]
severity: high
affects: [PyTorch]
summary: "A summary."
mechanism: "A mechanism."
symptoms:
  - observe: "something"
    why: "a reason"
confirm: ["a check"]
root_cause: "A cause."
fix:
  steps: ["a step"]
  commands:
    - run: "echo {requested} on {host}"
      explain: "an explanation"
verify:
  - run: "true"
    expect: "exit 0"
prevention: ["a habit"]
fingerprint: "an alert"
references:
  - title: "docs"
    url: "https://example.org/docs"
related: []
action: add-resources
role: cause
causes: []
patterns:
  - name: oom
    regex: 'Tried to allocate (?<requested>\d+ MiB)'
    source: "test"
tests:
  match:
    - line: "Tried to allocate 20 MiB"
      captures: {requested: "20 MiB"}
    - "[rank1]: Tried to allocate 5 MiB"
  no_match:
    - "allocated 20 MiB"
    - "Tried to allocate memory"
placeholders:
  requested: size
)";

struct TempTree {
  fs::path root;
  TempTree() {
    char tmpl[] = "/tmp/fl-sigs-XXXXXX";
    root = mkdtemp(tmpl);
  }
  ~TempTree() { fs::remove_all(root); }
  std::string write(const std::string &rel, const std::string &text) {
    fs::create_directories((root / rel).parent_path());
    std::ofstream(root / rel) << text;
    return (root / rel).string();
  }
};

std::string replace(std::string text, const std::string &from, const std::string &to) {
  size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

std::vector<Diagnostic> load(TempTree &t) {
  Diagnostics d;
  load_signatures(t.root.string(), LoadOptions{}, &d);
  return d.all();
}

// The one error expected: at this line (and column, if given), containing text.
void expect_error(const std::vector<Diagnostic> &diags, int line, int col, const std::string &part) {
  REQUIRE_MESSAGE(!diags.empty(), "expected an error containing '" << part << "'");
  bool found = false;
  for (const auto &d : diags)
    if (d.level == Diagnostic::kError && d.line == line && (col == 0 || d.col == col) &&
        d.message.find(part) != std::string::npos)
      found = true;
  std::string all;
  for (const auto &d : diags) all += d.format() + "\n";
  CHECK_MESSAGE(found, "wanted line " << line << " col " << col << " '" << part << "', got:\n" << all);
}

}  // namespace

TEST_CASE("signatures: a complete entry loads without diagnostics") {
  TempTree t;
  t.write("memory/demo-entry.yaml", kValid);
  Diagnostics d;
  auto sigs = load_signatures(t.root.string(), LoadOptions{}, &d);
  CHECK(d.all().empty());
  REQUIRE(sigs.size() == 1);
  CHECK(sigs[0].id == "demo-entry");
  CHECK(sigs[0].patterns.at(0).parsed.capture_names == std::vector<std::string>{"requested"});
  CHECK(sigs[0].must_match.size() == 2);
  CHECK(sigs[0].must_match[0].captures.at("requested") == "20 MiB");
  CHECK(sigs[0].must_match[0].pos.line == 38);
}

TEST_CASE("signatures: missing field names the entry and the map it belongs in") {
  TempTree t;
  t.write("memory/demo-entry.yaml", replace(kValid, "mechanism: \"A mechanism.\"\n", ""));
  auto d = load(t);
  expect_error(d, 1, 1, "missing field 'mechanism'");
  CHECK(d[0].entry == "demo-entry");
}

TEST_CASE("signatures: wrong type is reported at the value") {
  TempTree t;
  t.write("memory/demo-entry.yaml", replace(kValid, "tags: [demo]", "tags: demo"));
  expect_error(load(t), 5, 7, "must be a list");
}

TEST_CASE("signatures: closed vocabularies are enforced") {
  TempTree t;
  t.write("memory/demo-entry.yaml", replace(kValid, "action: add-resources", "action: reboot"));
  expect_error(load(t), 29, 9, "not a valid action");
}

TEST_CASE("signatures: unknown and duplicate fields are errors") {
  TempTree t;
  t.write("memory/demo-entry.yaml",
          replace(kValid, "fingerprint: \"an alert\"", "fingerprint: \"an alert\"\nsumary: \"typo\"\ntitle: \"again\""));
  auto d = load(t);
  expect_error(d, 25, 1, "unknown field 'sumary'");
  expect_error(d, 26, 1, "duplicate field 'title'");
}

TEST_CASE("signatures: duplicate ids across files name both files") {
  TempTree t;
  t.write("memory/demo-entry.yaml", kValid);
  // Same id in another category folder: the id check against the file name
  // passes, the category check fails, and the duplicate is still caught.
  t.write("cuda/demo-entry.yaml", replace(kValid, "category: memory", "category: cuda"));
  auto d = load(t);
  expect_error(d, 1, 5, "duplicate id: also defined in");
}

TEST_CASE("signatures: dangling related and causes ids") {
  TempTree t;
  t.write("memory/demo-entry.yaml",
          replace(replace(kValid, "related: []", "related: [no-such-entry]"), "causes: []", "causes: [demo-entry]"));
  auto d = load(t);
  expect_error(d, 28, 10, "related names 'no-such-entry', which no signature defines");
  expect_error(d, 31, 9, "causes names the entry itself");
}

TEST_CASE("signatures: id must equal the file name and category the folder") {
  TempTree t;
  t.write("cuda/other-name.yaml", kValid);
  auto d = load(t);
  expect_error(d, 1, 5, "differs from the file name");
  expect_error(d, 3, 11, "but the file is in folder 'cuda'");
}

TEST_CASE("signatures: a regex error points a caret at the offending character") {
  TempTree t;
  std::string path = t.write("memory/demo-entry.yaml",
                             replace(kValid, "Tried to allocate (?<requested>", "Tried (?=x) to allocate (?<requested>"));
  auto d = load(t);
  // Line 34 is `    regex: 'Tried (?=x)...`: the quote is column 12, the '(' column 19.
  expect_error(d, 34, 19, "lookaround is not supported");
  std::string text = d[0].format();
  CHECK(text.find(path + ":34:19: error: [demo-entry] pattern 'oom'") == 0);
  CHECK(text.find("\n                      ^") != std::string::npos);  // 4 + 18 spaces
}

TEST_CASE("signatures: escaped quotes shift the caret column") {
  TempTree t;
  t.write("memory/demo-entry.yaml",
          replace(kValid, "'Tried to allocate (?<requested>", "'it''s (?<x>a)(?<x>b) Tried to allocate (?<requested>"));
  // The quote is column 12, so byte k sits at column 13 + k; "it''s" spends
  // two columns on byte 2, so the second name (byte 15) is at column 29.
  expect_error(load(t), 34, 13 + 15 + 1, "duplicate capture name 'x'");
}

TEST_CASE("signatures: placeholders must be captures or framing fields") {
  TempTree t;
  t.write("memory/demo-entry.yaml",
          replace(kValid, "echo {requested} on {host}", "echo {bytes} {requested} ${HOME} awk '{ print }'"));
  auto d = load(t);
  expect_error(d, 18, 12, "placeholder {bytes}");
  CHECK(d.size() == 1);  // ${HOME} and awk braces are not placeholders
}

TEST_CASE("signatures: every placeholder a command uses has a type") {
  TempTree t;
  t.write("memory/demo-entry.yaml", replace(kValid, "placeholders:\n  requested: size\n", ""));
  expect_error(load(t), 18, 12, "placeholder {requested} has no type");
}

TEST_CASE("signatures: placeholder types are the known narrow ones") {
  TempTree t;
  t.write("memory/demo-entry.yaml", replace(kValid, "  requested: size", "  requested: text"));
  expect_error(load(t), 45, 14, "free text, which never goes into a command");
  t.write("memory/demo-entry.yaml", replace(kValid, "  requested: size", "  requested: words"));
  expect_error(load(t), 45, 14, "has type 'words'");
  t.write("memory/demo-entry.yaml", replace(kValid, "  requested: size", "  requested: size\n  host: hostname"));
  expect_error(load(t), 46, 3, "{host} is typed by the report");
  t.write("memory/demo-entry.yaml", replace(kValid, "echo {requested} on {host}", "echo on {host}"));
  expect_error(load(t), 45, 3, "placeholder 'requested' is declared but no command uses it");
}

TEST_CASE("signatures: test captures must name a capture") {
  TempTree t;
  t.write("memory/demo-entry.yaml", replace(kValid, "captures: {requested: \"20 MiB\"}", "captures: {size: \"20 MiB\"}"));
  expect_error(load(t), 39, 18, "no pattern of this entry captures 'size'");
}

TEST_CASE("signatures: placeholder text is refused") {
  TempTree t;
  t.write("memory/demo-entry.yaml", replace(kValid, "root_cause: \"A cause.\"", "root_cause: TODO"));
  expect_error(load(t), 14, 13, "placeholder");
}

TEST_CASE("signatures: YAML syntax errors carry the position") {
  TempTree t;
  t.write("memory/demo-entry.yaml", replace(kValid, "tags: [demo]", "tags: [demo"));
  auto d = load(t);
  REQUIRE(!d.empty());
  CHECK(d[0].message.find("YAML") == 0);
  CHECK(d[0].line >= 5);
}

TEST_CASE("signatures: code examples and answers load; their vocabularies are closed") {
  const std::string extras =
      "code_examples:\n"
      "  - stack: pytorch\n"
      "    code: \"torch.cuda.empty_cache()\"\n"
      "    why: \"frees the cache\"\n"
      "  - stack: deepspeed\n"
      "    language: json\n"
      "    code: \"{}\"\n"
      "    why: \"a config\"\n"
      "answers:\n"
      "  cheapest_confirm: \"nvidia-smi\"\n"
      "  hardware_or_software: \"software\"\n";
  {
    TempTree t;
    t.write("memory/demo-entry.yaml", std::string(kValid) + extras);
    Diagnostics d;
    auto sigs = load_signatures(t.root.string(), LoadOptions{}, &d);
    CHECK(d.all().empty());
    REQUIRE(sigs.size() == 1);
    REQUIRE(sigs[0].code_examples.size() == 2);
    CHECK(sigs[0].code_examples[0].language == "python");  // the default
    CHECK(sigs[0].code_examples[1].language == "json");
    REQUIRE(sigs[0].answers.size() == 2);
    CHECK(sigs[0].answers[0].question == 0);  // sorted: hardware_or_software first
    CHECK(sigs[0].answers[1].text == "nvidia-smi");
  }
  const int first = 46;  // the line of "code_examples:" after kValid
  struct Bad {
    std::string from, to;
    int line;
    const char *error;
  } bad[] = {
      {"stack: pytorch", "stack: caffe", first + 1, "not a valid stack"},
      {"stack: deepspeed", "stack: pytorch", first + 4, "a second code example for stack 'pytorch'"},
      {"language: json", "language: cobol", first + 5, "not a valid language"},
      {"cheapest_confirm:", "how_to_fix:", first + 9, "not a question"},
      {"    why: \"a config\"\n", "", first + 4, "missing field 'why'"},
  };
  for (const auto &b : bad) {
    TempTree t;
    t.write("memory/demo-entry.yaml", std::string(kValid) + replace(extras, b.from, b.to));
    expect_error(load(t), b.line, 0, b.error);
  }
}

TEST_CASE("taxonomies: rows must name existing entries or say why none") {
  TempTree t;
  t.write("memory/demo-entry.yaml", kValid);
  t.write("taxonomies/demo.yaml",
          "id: demo\n"
          "title: \"A taxonomy\"\n"
          "source: \"a paper\"\n"
          "url: https://example.org\n"
          "rows:\n"
          "  - name: OOM\n"
          "    detail: \"out of memory\"\n"
          "    entries: [demo-entry, no-such-entry]\n"
          "  - name: Chassis\n"
          "    detail: \"a box\"\n"
          "  - name: Memory\n"
          "    detail: \"all of it\"\n"
          "    categories: [memory]\n");
  Diagnostics d;
  auto sigs = load_signatures(t.root.string(), LoadOptions{}, &d);
  REQUIRE(d.all().empty());  // the taxonomy is not read as a signature
  auto taxonomies = load_external_taxonomies(t.root.string(), sigs, &d);
  expect_error(d.all(), 8, 14, "names 'no-such-entry', which no entry defines");
  expect_error(d.all(), 9, 5, "needs entries or categories, or 'none'");
  CHECK(d.error_count() == 2);
}
