// Test helpers: signatures built in memory (no YAML) and packs built from
// them with the real Ragel, opened with the real verifier.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "match/pack_reader.h"
#include "pack_writer.h"
#include "program_compiler.h"
#include "regex_parser.h"
#include "signature.h"

namespace fixtures {

// A complete, valid signature whose patterns are `regexes`.
inline faultline::Signature signature(const std::string &id, const std::vector<std::string> &regexes,
                                      const faultline::PieceOptions &opt = {}) {
  faultline::Signature s;
  s.file = "memory/" + id + ".yaml";
  s.rel_path = s.file;
  s.id = id;
  s.title = "test entry " + id;
  s.category = "memory";
  s.type = "cuda_oom";
  s.tags = {"test"};
  s.severity = "high";
  s.affects = {"tests"};
  s.summary = s.mechanism = s.root_cause = s.fingerprint = "text";
  s.symptoms = {{"seen", "because"}};
  s.confirm = s.fix_steps = s.prevention = {"step"};
  s.fix_commands = {{"true", "does nothing", {}}};
  s.verify = {{"true", "exit 0", {}}};
  s.references = {{"ref", "https://example.org"}};
  s.action = "fix-code";
  s.role = "cause";
  for (size_t i = 0; i < regexes.size(); i++) {
    faultline::PatternDef p;
    p.name = "p" + std::to_string(i);
    p.regex = regexes[i];
    p.source = "test";
    p.parsed = faultline::regex::parse(p.regex);
    p.program = faultline::compile_program(p.parsed);
    p.pieces = faultline::split_pattern(p.parsed, opt);
    s.patterns.push_back(std::move(p));
  }
  return s;
}

inline faultline::BuildOptions build_options() {
  faultline::BuildOptions o;
  o.ragel = FAULTLINE_TEST_RAGEL;
  o.jobs = 1;
  return o;
}

// A pack in 8-byte aligned memory, kept alive with its view.
struct Pack {
  std::vector<uint64_t> memory;
  size_t size = 0;
  faultline::PackView view;

  const uint8_t *bytes() const { return reinterpret_cast<const uint8_t *>(memory.data()); }
  uint8_t *bytes() { return reinterpret_cast<uint8_t *>(memory.data()); }
};

inline void copy_bytes(Pack *p, const std::vector<uint8_t> &bytes) {
  p->memory.assign((bytes.size() + 7) / 8 + 1, 0);
  p->size = bytes.size();
  if (!bytes.empty()) std::memcpy(p->memory.data(), bytes.data(), bytes.size());
}

inline faultline::Status open(Pack *p, faultline::ErrorText *err = nullptr) {
  faultline::ErrorText local;
  return faultline::open_pack_view(p->bytes(), p->size, &p->view, err ? err : &local);
}

inline Pack build(const std::vector<faultline::Signature> &sigs, const faultline::BuildOptions &opt = build_options()) {
  Pack p;
  copy_bytes(&p, faultline::build_pack(sigs, opt).bytes);
  return p;
}

}  // namespace fixtures
