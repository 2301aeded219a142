#include "lint.h"

#include <algorithm>
#include <set>

#include "pieces.h"
#include "signature_tests.h"

namespace faultline {

void lint_signatures(const std::vector<Signature> &sigs, const PackView &pack, Diagnostics *diags) {
  auto warn = [&](const Signature &s, SourcePos p, const std::string &msg) {
    diags->warning(Diagnostic{Diagnostic::kWarning, s.file, p.line, p.col, s.id, msg, ""});
  };
  auto error = [&](const Signature &s, SourcePos p, const std::string &msg) {
    diags->error(Diagnostic{Diagnostic::kError, s.file, p.line, p.col, s.id, msg, ""});
  };
  for (uint32_t ei = 0; ei < sigs.size(); ei++) {
    const Signature &s = sigs[ei];
    const fb::Entry *e = pack.entry(ei);
    if (s.must_match.size() < 2) error(s, s.id_pos, "needs at least 2 must-match test lines (has " + std::to_string(s.must_match.size()) + ")");
    if (s.must_not_match.size() < 2)
      error(s, s.id_pos, "needs at least 2 must-not-match near misses (has " + std::to_string(s.must_not_match.size()) + ")");
    for (const auto &p : s.patterns) {
      if (p.pieces.weak) warn(s, p.pos, "pattern '" + p.name + "' has no literal of 3+ bytes: most lines will reach its program");
      std::vector<uint32_t> grams;
      bool any = false;
      for (const auto &piece : p.pieces.pieces) any = piece_grams(piece, &grams) || any;
      if (!any) warn(s, p.pos, "pattern '" + p.name + "' has no 3-byte literal the prefilter can use: it turns the prefilter off for the whole pack");
    }
    for (const auto &r : s.references)
      if (r.url.rfind("http://", 0) == 0) warn(s, s.id_pos, "reference uses http://, prefer https: " + r.url);

    // Generic entries (tag `generic`: any uncaught exception, NCCL init
    // lines) overlap specific ones by design.
    auto is_generic = [](const faultline::fb::Entry *x) {
      if (!x->tags()) return false;
      for (const auto *t : *x->tags())
        if (t->str() == "generic") return true;
      return false;
    };
    std::set<uint32_t> exercised;
    for (const auto &t : s.must_match) {
      LineMatches m = match_line(pack, t.line);
      std::set<std::string> others;
      for (const auto &[p, fields] : m.patterns) {
        uint32_t owner = pack.pattern(p)->entry();
        if (owner == kFramingEntry) continue;
        if (owner == ei) exercised.insert(p);
        else if (!pack.entry(owner)->deprecated() && !is_generic(pack.entry(owner)))
          others.insert(pack.entry(owner)->id()->str());
      }
      for (const auto &o : others) {
        // Overlap between entries that name each other is by design (a
        // specific cause and its generic form); only unrelated ones warn.
        auto names = [&](const Signature &x, const std::string &id) {
          return std::find(x.related.begin(), x.related.end(), id) != x.related.end() ||
                 std::find(x.causes.begin(), x.causes.end(), id) != x.causes.end();
        };
        auto other = std::find_if(sigs.begin(), sigs.end(), [&](const Signature &x) { return x.id == o; });
        if (names(s, o) || (other != sigs.end() && names(*other, s.id))) continue;
        warn(s, t.pos, "example also matches entry '" + o + "' (overlapping patterns: make one more specific, or relate them)");
      }
    }
    for (uint32_t p = e->first_pattern(); p < e->first_pattern() + e->pattern_count(); p++)
      if (!exercised.count(p)) {
        const auto &def = s.patterns[p - e->first_pattern()];
        warn(s, def.pos, "pattern '" + def.name + "' is not exercised by any must-match line");
      }
  }
}

void lint_framings(const std::vector<Framing> &framings, Diagnostics *diags) {
  for (const auto &f : framings) {
    auto error = [&](const std::string &msg) { diags->error(Diagnostic{Diagnostic::kError, f.file, f.id_pos.line, f.id_pos.col, f.id, msg, ""}); };
    if (f.must_match.size() < 2) error("needs at least 2 must-match test lines");
    if (f.must_not_match.size() < 2) error("needs at least 2 must-not-match near misses");
    for (const auto &p : f.patterns)
      if (p.pieces.weak)
        diags->warning(Diagnostic{Diagnostic::kWarning, f.file, p.pos.line, p.pos.col, f.id,
                                  "pattern '" + p.name + "' has no literal of 3+ bytes: lines with events will run its program", ""});
  }
}

}  // namespace faultline
