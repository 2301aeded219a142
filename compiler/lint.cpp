#include "lint.h"

#include <algorithm>
#include <functional>
#include <iterator>
#include <map>
#include <set>

#include "common/decimal.h"
#include "common/limits.h"
#include "common/vocabulary.h"
#include "literal_filter_build.h"
#include "pieces.h"
#include "signature_tests.h"

namespace faultline {

// A key seen more often than this in healthy logs (about once per 5 KB, one
// line in 40)
// makes its lines candidates often enough to show in throughput.
constexpr double kCommonKeyPer10Mb = 2000;

namespace {

using Warn = std::function<void(SourcePos, const std::string &)>;

bool is_decimal(const std::string &v) {
  int64_t n;
  return parse_decimal(v.data(), v.size(), &n);
}

// Whether the diagnosis reads a capture of this entry's events (common/vocabulary.h).
bool reads_capture(const Signature &s, bool generic, ReadIn where) {
  if (where == ReadIn::kAnyEntry) return true;
  if (where == ReadIn::kGenericEntries) return generic;
  return std::any_of(s.patterns.begin(), s.patterns.end(),
                     [](const PatternDef &p) { return p.name == pattern::kRootCauseHeader; });
}

// Pattern names the diagnosis reads only in generic entries, used elsewhere.
void lint_pattern_names(const Signature &s, bool generic, const Warn &warn) {
  for (const auto &p : s.patterns)
    for (const PatternWord &word : kDiagnosisPatterns)
      if (p.name == word.name && word.where == ReadIn::kGenericEntries && !generic)
        warn(p.pos, "pattern name '" + p.name + "' means something to the diagnosis only in entries tagged " + kTagGeneric +
                        ": rename it, or tag the entry");
}

// One must-match example against the limits and the vocabulary: what the
// runtime would cut or silently ignore.
void lint_example(const Signature &s, bool generic, const MatchTest &t, const LineMatches &m, const PackView &pack,
                  uint32_t entry, const Warn &warn) {
  if (t.line.size() > kDefaultMaxLineBytes)
    warn(t.pos, "example longer than the " + std::to_string(kDefaultMaxLineBytes) +
                    " bytes a scanner keeps of a line: the runtime matches only its start");
  for (const auto &[pattern, fields] : m.patterns) {
    if (pack.pattern(pattern)->entry() != entry) continue;
    for (const auto &[name, value] : fields)
      for (const CaptureWord &word : kDiagnosisCaptures)
        if (word.number && name == word.name && !is_decimal(value) && reads_capture(s, generic, word.where))
          warn(t.pos, "capture '" + name + "' is read by the diagnosis as a number, but this example captures '" + value +
                          "': the diagnosis would ignore it");
  }
}

// --- Rank statements a pattern matches without capturing --------------------
//
// The diagnosis can use a rank a message states ("[Rank 3]", "for rank 3",
// "rank=3", "localRank 1") only if the pattern captures it, under a name that
// says whose rank it is. A rank statement is the word "rank" in any case,
// starting a word (after a byte that is not a letter or digit, so also
// "local_rank", or camelCase "localRank"), then optional blanks, an optional
// '=' or ':' and blanks, and a decimal number not followed by a letter or digit
// ("rank3", "Rank 3", "rank: 3"; not "ranks 3", "rank -1", "rank [3]"). Only
// the part of an example the pattern matched counts, and a statement is
// covered when one of these captures spans its number.
constexpr const char *kPeerRank = "peer_rank";  // another rank the message names, not blamed (a report field)
constexpr const char *kRankCaptures[] = {
    capture::kRank,     capture::kLocalRank,  capture::kCulpritRank,     capture::kDifferingRank,
    capture::kCommRank, capture::kFailedRank, capture::kFailedLocalRank, kPeerRank};

bool is_alnum(char c) { return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z'); }

struct RankStatement {
  Span text, digits;  // "local_rank: 3" and its "3"
};

std::vector<RankStatement> rank_statements(const std::string &line, Span span) {
  std::vector<RankStatement> found;
  for (size_t i = span.begin; i + 4 < span.end; i++) {
    if ((line[i] | 0x20) != 'r' || (line[i + 1] | 0x20) != 'a' || (line[i + 2] | 0x20) != 'n' || (line[i + 3] | 0x20) != 'k')
      continue;
    const bool camel = i > 0 && line[i] == 'R' && line[i - 1] >= 'a' && line[i - 1] <= 'z';
    if (i > 0 && is_alnum(line[i - 1]) && !camel) continue;
    size_t j = i + 4;
    while (j < span.end && line[j] == ' ') j++;
    if (j < span.end && (line[j] == '=' || line[j] == ':'))
      for (j++; j < span.end && line[j] == ' ';) j++;
    const size_t number = j;
    while (j < span.end && line[j] >= '0' && line[j] <= '9') j++;
    if (j == number || (j < line.size() && is_alnum(line[j]))) continue;
    size_t word = i;  // quoted from the start of its identifier: "local_rank: 3"
    while (word > span.begin && (is_alnum(line[word - 1]) || line[word - 1] == '_')) word--;
    found.push_back(RankStatement{Span{word, j}, Span{number, j}});
  }
  return found;
}

// Warns for every rank statement in the part of a must-match example that a
// pattern of this entry matched, unless a rank capture of that match spans it.
void lint_rank_statements(const Signature &s, const MatchTest &t, const LineMatches &m, const PackView &pack, uint32_t entry,
                          const Warn &warn) {
  static const std::map<std::string, Span> kNone;
  for (const auto &[pattern, span] : m.matched) {
    if (pack.pattern(pattern)->entry() != entry) continue;
    auto it = m.capture_spans.find(pattern);
    const auto &caps = it == m.capture_spans.end() ? kNone : it->second;
    for (const RankStatement &r : rank_statements(t.line, span)) {
      auto spans = [&](const char *name) {
        auto c = caps.find(name);
        return c != caps.end() && c->second.begin <= r.digits.begin && c->second.end >= r.digits.end;
      };
      if (std::any_of(std::begin(kRankCaptures), std::end(kRankCaptures), spans)) continue;
      const std::string example = t.line.size() > 100 ? t.line.substr(0, 100) + "..." : t.line;
      warn(t.pos, "pattern '" + s.patterns[pattern - pack.entry(entry)->first_pattern()].name + "' matches '" +
                      t.line.substr(r.text.begin, r.text.end - r.text.begin) +
                      "' but captures no rank there: name the number by whose rank it is (rank: the printer's global rank; "
                      "local_rank; comm_rank: its rank in an NCCL communicator or a non-default process group; culprit_rank: "
                      "a rank blamed for a hang or desync; differing_rank: a rank whose collective differs from the printer's; "
                      "failed_rank: a worker a launcher reports dead; peer_rank: another rank named without blame) in example "
                      "\"" +
                      example + "\"");
    }
  }
}

// `related` is a two-way link: a page that points to another is pointed back
// to, so a reader lands on the pair from either side.
void lint_related_symmetry(const std::vector<Signature> &sigs,
                           const std::function<void(const Signature &, SourcePos, const std::string &)> &warn) {
  std::map<std::string, const Signature *> by_id;
  for (const auto &s : sigs) by_id[s.id] = &s;
  for (const auto &s : sigs)
    for (const auto &r : s.related) {
      auto it = by_id.find(r);
      if (it == by_id.end()) continue;  // the reader reports unknown ids
      const auto &back = it->second->related;
      if (std::find(back.begin(), back.end(), s.id) == back.end())
        warn(*it->second, it->second->related_pos.line ? it->second->related_pos : it->second->id_pos,
             "'" + s.id + "' lists this entry under related, but this entry does not list '" + s.id + "' back");
    }
}

}  // namespace

void lint_signatures(const std::vector<Signature> &sigs, const PackView &pack, Diagnostics *diags) {
  std::vector<const regex::Regex *> regexes;
  for (const auto &s : sigs)
    for (const auto &p : s.patterns) regexes.push_back(&p.parsed);
  const LiteralPlan plan = plan_literals(regexes);
  size_t pattern_index = 0;
  auto warn = [&](const Signature &s, SourcePos p, const std::string &msg) {
    diags->warning(Diagnostic{Diagnostic::kWarning, s.file, p.line, p.col, s.id, msg, ""});
  };
  auto error = [&](const Signature &s, SourcePos p, const std::string &msg) {
    diags->error(Diagnostic{Diagnostic::kError, s.file, p.line, p.col, s.id, msg, ""});
  };
  lint_related_symmetry(sigs, warn);
  for (uint32_t ei = 0; ei < sigs.size(); ei++) {
    const Signature &s = sigs[ei];
    const fb::Entry *e = pack.entry(ei);
    if (s.action == "fix-code" && s.code_examples.empty() && !s.deprecated)
      warn(s, s.id_pos, "action is fix-code but the entry shows no code_examples: show the change for the stacks it differs in");
    if (s.must_match.size() < 2)
      error(s, s.id_pos, "needs at least 2 must-match test lines (has " + std::to_string(s.must_match.size()) + ")");
    if (s.must_not_match.size() < 2)
      error(s, s.id_pos, "needs at least 2 must-not-match near misses (has " + std::to_string(s.must_not_match.size()) + ")");
    for (const auto &p : s.patterns) {
      if (p.pieces.weak) warn(s, p.pos, "pattern '" + p.name + "' has no literal of 3+ bytes: most lines will reach its program");
      const std::vector<uint32_t> &keys = plan.pattern_keys[pattern_index++];
      if (keys.empty()) {
        warn(s, p.pos,
             "pattern '" + p.name +
                 "' has no literal of 4+ bytes every match contains: it turns the literal filter off for the whole pack");
        continue;
      }
      // A key common in healthy logs sends those lines through the DFAs.
      for (uint32_t k : keys) {
        const double per_10mb = literal_frequency(plan.keys[k].literal);
        if (per_10mb >= kCommonKeyPer10Mb)
          warn(s, p.pos,
               "pattern '" + p.name + "' is keyed on '" + plan.keys[k].literal.bytes + "', which occurs about " +
                   std::to_string(static_cast<long>(per_10mb / 10)) +
                   " times per MB of healthy training logs: give it a rarer literal (flc literals shows the choice)");
      }
    }
    for (const auto &r : s.references)
      if (r.url.rfind("http://", 0) == 0) warn(s, s.id_pos, "reference uses http://, prefer https: " + r.url);
    const bool generic = entry_is_generic(e);
    const Warn warn_here = [&](SourcePos p, const std::string &msg) { warn(s, p, msg); };
    lint_pattern_names(s, generic, warn_here);

    std::set<uint32_t> exercised;
    for (const auto &t : s.must_match) {
      LineMatches m = match_line(pack, t.line);
      lint_example(s, generic, t, m, pack, ei, warn_here);
      lint_rank_statements(s, t, m, pack, ei, warn_here);
      // Generic entries (tag `generic`: any uncaught exception, NCCL init
      // lines) overlap specific ones by design.
      std::set<std::string> others;
      for (const auto &[p, fields] : m.patterns) {
        uint32_t owner = pack.pattern(p)->entry();
        if (owner == kFramingEntry) continue;
        if (owner == ei)
          exercised.insert(p);
        else if (!pack.entry(owner)->deprecated() && !entry_is_generic(pack.entry(owner)))
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
    auto error = [&](const std::string &msg) {
      diags->error(Diagnostic{Diagnostic::kError, f.file, f.id_pos.line, f.id_pos.col, f.id, msg, ""});
    };
    if (f.must_match.size() < 2) error("needs at least 2 must-match test lines");
    if (f.must_not_match.size() < 2) error("needs at least 2 must-not-match near misses");
    // An anchored prefix's program gives up at the first byte that cannot
    // begin it: only unanchored framing needs a literal to stay cheap.
    for (const auto &p : f.patterns)
      if (p.pieces.weak && !p.pieces.anchored)
        diags->warning(Diagnostic{Diagnostic::kWarning, f.file, p.pos.line, p.pos.col, f.id,
                                  "pattern '" + p.name + "' has no literal of 3+ bytes: lines with events will run its program",
                                  ""});
  }
}

}  // namespace faultline
