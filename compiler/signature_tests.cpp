#include "signature_tests.h"

#include <cstring>
#include <memory>
#include <vector>

#include "match/line_matcher.h"
#include "match/line_scanner.h"

namespace faultline {
namespace {

struct Collect {
  const PackView *pack;
  const std::string *line;
  LineMatches *out;
  const LineMatcher *matcher;  // where the line's message starts, behind its prefixes
};

// Runs one pattern's confirmation program over `line` alone; false if it
// does not match. `slots` gets the program's slot_count offsets.
// Runs a pattern's program on the line from offset `at` (as its start);
// the slots come back as offsets in the whole line.
bool run_program(const PackView &pack, uint32_t pattern, const std::string &line, std::vector<int32_t> *slots, size_t at = 0) {
  ProgramView prog = pack.program(pattern);
  std::vector<uint8_t> scratch(pike_scratch_bytes(prog.insn_count, prog.slot_count) + 8);
  slots->assign(prog.slot_count, -1);
  void *aligned = reinterpret_cast<void *>((reinterpret_cast<uintptr_t>(scratch.data()) + 7) & ~uintptr_t{7});
  if (!pike_match(prog, reinterpret_cast<const uint8_t *>(line.data()) + at, line.size() - at, aligned, slots->data()))
    return false;
  for (int32_t &v : *slots)
    if (v >= 0) v += static_cast<int32_t>(at);
  return true;
}

void on_match(void *ctx, uint32_t pattern, const int32_t *slots) {
  auto *c = static_cast<Collect *>(ctx);
  auto &fields = c->out->patterns[pattern];
  // Patterns without captures come without slots (a DFA decided alone):
  // their program says where the match lies, from where the matcher ran it.
  std::vector<int32_t> own;
  if (!slots) {
    const size_t at = program_anchored(c->pack->program(pattern)) ? c->matcher->message_start() : 0;
    if (!run_program(*c->pack, pattern, *c->line, &own, at)) return;
    slots = own.data();
  }
  if (slots[0] >= 0 && slots[1] >= slots[0])
    c->out->matched[pattern] = Span{static_cast<size_t>(slots[0]), static_cast<size_t>(slots[1])};
  const auto *names = c->pack->pattern(pattern)->capture_names();
  for (uint32_t g = 0; names && g < names->size(); g++) {
    int32_t a = slots[2 * (g + 1)], b = slots[2 * (g + 1) + 1];
    if (a < 0 || b < a) continue;
    fields[names->Get(g)->str()] = c->line->substr(static_cast<size_t>(a), static_cast<size_t>(b - a));
    c->out->capture_spans[pattern][names->Get(g)->str()] = Span{static_cast<size_t>(a), static_cast<size_t>(b)};
  }
}

std::string quote(const std::string &s) { return "\"" + (s.size() > 160 ? s.substr(0, 160) + "..." : s) + "\""; }

}  // namespace

LineMatches match_line(const PackView &pack, const std::string &line, bool frame_always) {
  LineMatches m;
  LineMatcher matcher;
  if (matcher.create(&pack) != Status::kOk) throw std::bad_alloc();
  Collect c{&pack, &line, &m, &matcher};
  matcher.match_line(reinterpret_cast<const uint8_t *>(line.data()), line.size(), on_match, &c, frame_always);
  return m;
}

TestSummary run_framing_tests(const std::vector<Framing> &framings, const PackView &pack, Diagnostics *diags) {
  TestSummary sum;
  const auto *table = pack.root->framing();
  for (uint32_t fi = 0; fi < framings.size(); fi++) {
    const Framing &f = framings[fi];
    if (!table || fi >= table->size() || table->Get(fi)->name()->str() != f.id)
      throw std::runtime_error("pack does not correspond to the framing files (" + f.id + ")");
    const fb::Framing *fr = table->Get(fi);
    auto fields_of = [&](const std::string &line, bool *hit) {
      LineMatches m = match_line(pack, line, true);
      std::map<std::string, std::string> fields;
      *hit = false;
      for (const auto &[p, got] : m.patterns) {
        if (p < fr->first_pattern() || p >= fr->first_pattern() + fr->pattern_count()) continue;
        *hit = true;
        for (const auto &kv : got) fields.emplace(kv.first, kv.second);
      }
      return fields;
    };
    auto fail = [&](SourcePos p, const std::string &msg) {
      sum.failures++;
      diags->error(Diagnostic{Diagnostic::kError, f.file, p.line, p.col, f.id, msg, ""});
    };
    for (const auto &t : f.must_match) {
      sum.lines++;
      bool hit;
      auto fields = fields_of(t.line, &hit);
      if (!hit) {
        fail(t.pos, "must-match line is not read by this framing: " + quote(t.line));
        continue;
      }
      for (const auto &[name, want] : t.captures) {
        auto it = fields.find(name);
        if (it == fields.end())
          fail(t.pos, "frame field '" + name + "' is unset, expected " + quote(want));
        else if (it->second != want)
          fail(t.pos, "frame field '" + name + "' is " + quote(it->second) + ", expected " + quote(want));
      }
    }
    for (const auto &t : f.must_not_match) {
      sum.lines++;
      bool hit;
      fields_of(t.line, &hit);
      if (hit) fail(t.pos, "must-not-match line is read by this framing: " + quote(t.line));
    }
  }
  return sum;
}

namespace {

// A line's frame as the scanner keeps it (later values win), rendered as
// "field=value" lines for comparison.
std::map<std::string, std::string> frame_of(const PackView &pack, const std::string &line) {
  struct Ctx {
    const PackView *pack;
    const std::string *line;
    LineFrame frame;
  } c{&pack, &line, {}};
  c.frame.reset();
  LineMatcher matcher;
  if (matcher.create(&pack) != Status::kOk) throw std::bad_alloc();
  auto add = [](void *p, uint32_t pattern, const int32_t *slots) {
    auto *x = static_cast<Ctx *>(p);
    const fb::Pattern *pat = x->pack->pattern(pattern);
    if (pat->entry() != kFramingEntry || !slots || !pat->capture_names()) return;
    for (uint32_t g = 0; g < pat->capture_names()->size(); g++)
      if (slots[2 * (g + 1)] >= 0)
        x->frame.add(pat->capture_names()->Get(g)->c_str(), reinterpret_cast<const uint8_t *>(x->line->data()),
                     slots[2 * (g + 1)], slots[2 * (g + 1) + 1]);
  };
  matcher.match_line(reinterpret_cast<const uint8_t *>(line.data()), line.size(), add, &c, true);
  std::map<std::string, std::string> out;
  for (size_t f = 0; f < kFrameFieldCount; f++) {
    if (c.frame.from[f] < 0) continue;
    if (f == static_cast<size_t>(FrameField::kHost))
      out[kFrameFieldNames[f]] = std::string(c.frame.host, c.frame.host_len);
    else if (f == static_cast<size_t>(FrameField::kTime))
      out[kFrameFieldNames[f]] = std::string(c.frame.time, c.frame.time_len);
    else
      out[kFrameFieldNames[f]] = std::to_string(c.frame.number[f]);
  }
  return out;
}

// The anchored prefix a framing's example line starts with ("" if none).
std::string leading_prefix(const PackView &pack, const fb::Framing *fr, const std::string &line) {
  size_t end = 0;
  std::vector<int32_t> slots;
  for (uint32_t p = fr->first_pattern(); p < fr->first_pattern() + fr->pattern_count(); p++)
    if (program_anchored(pack.program(p)) && run_program(pack, p, line, &slots) && static_cast<size_t>(slots[1]) > end)
      end = static_cast<size_t>(slots[1]);
  return line.substr(0, end);
}

}  // namespace

TestSummary run_framing_composition(const std::vector<Framing> &framings, const PackView &pack, Diagnostics *diags) {
  TestSummary sum;
  const auto *table = pack.root->framing();
  if (!table) return sum;
  // The first example of each format that starts with its prefix.
  std::vector<std::string> prefixes(framings.size());
  for (uint32_t fi = 0; fi < framings.size() && fi < table->size(); fi++)
    for (const auto &t : framings[fi].must_match)
      if (prefixes[fi].empty()) prefixes[fi] = leading_prefix(pack, table->Get(fi), t.line);
  for (uint32_t a = 0; a < framings.size(); a++) {
    if (prefixes[a].empty()) continue;
    const auto outer = frame_of(pack, prefixes[a]);
    for (uint32_t b = 0; b < framings.size(); b++) {
      if (b == a) continue;
      for (const auto &t : framings[b].must_match) {
        sum.lines++;
        // The inner line's own fields win; the outer prefix adds the rest.
        auto want = frame_of(pack, t.line);
        for (const auto &kv : outer) want.emplace(kv.first, kv.second);
        const std::string line = prefixes[a] + t.line;
        const auto got = frame_of(pack, line);
        if (got == want) continue;
        sum.failures++;
        std::string diff;
        for (const auto &[k, v] : want) {
          auto it = got.find(k);
          diff += " " + k + "=" + (it == got.end() ? std::string("<unset>") : quote(it->second)) + " (expected " + quote(v) + ")";
        }
        diags->error(Diagnostic{Diagnostic::kError, framings[b].file, t.pos.line, t.pos.col, framings[b].id,
                                "behind the prefix of " + framings[a].id + " the frame differs: " + quote(line) + diff, ""});
      }
    }
  }
  return sum;
}

TestSummary run_signature_tests(const std::vector<Signature> &sigs, const PackView &pack, Diagnostics *diags) {
  TestSummary sum;
  LineMatcher matcher;
  if (matcher.create(&pack) != Status::kOk) throw std::bad_alloc();
  // Patterns of an entry, by pack index: entries are stored in id order,
  // the same order as sigs.
  for (uint32_t ei = 0; ei < sigs.size(); ei++) {
    const Signature &s = sigs[ei];
    const fb::Entry *e = pack.entry(ei);
    if (e->id()->str() != s.id) throw std::runtime_error("pack does not correspond to the signatures (entry " + s.id + ")");
    auto matches_entry = [&](const std::string &line, std::map<std::string, std::string> *fields) {
      LineMatches m;
      Collect c{&pack, &line, &m, &matcher};
      matcher.match_line(reinterpret_cast<const uint8_t *>(line.data()), line.size(), on_match, &c);
      bool hit = false;
      for (const auto &[p, f] : m.patterns) {
        if (p < e->first_pattern() || p >= e->first_pattern() + e->pattern_count()) continue;
        if (!hit && fields)
          *fields = f;
        else if (fields)
          for (const auto &kv : f) fields->emplace(kv.first, kv.second);
        hit = true;
      }
      // The prefilter must never lose a match: the programs alone decide
      // the same. A disagreement is a compiler bug, not a signature bug.
      bool vm_hit = false;
      std::vector<int32_t> slots;
      for (uint32_t p = e->first_pattern(); p < e->first_pattern() + e->pattern_count(); p++) {
        // Anchored patterns read the message behind the line's prefixes,
        // unless a logger header below error level is among them.
        const bool anchored = program_anchored(pack.program(p));
        if (anchored && matcher.quiet_header()) continue;
        const size_t at = anchored ? matcher.message_start() : 0;
        vm_hit = vm_hit || run_program(pack, p, line, &slots, at);
        // A '^' inside an alternative holds at the message start too.
        if (!vm_hit && program_starts_inside(pack.program(p)) && matcher.message_start() > 0 && !matcher.quiet_header())
          vm_hit = run_program(pack, p, line, &slots, matcher.message_start());
      }
      if (vm_hit != hit)
        throw std::logic_error("flc bug: the DFA prefilter and the confirmation program disagree on a line of " + s.id);
      return hit;
    };
    auto fail = [&](SourcePos p, const std::string &msg) {
      sum.failures++;
      diags->error(Diagnostic{Diagnostic::kError, s.file, p.line, p.col, s.id, msg, ""});
    };
    for (const auto &t : s.must_match) {
      sum.lines++;
      std::map<std::string, std::string> fields;
      if (!matches_entry(t.line, &fields)) {
        fail(t.pos, "must-match line does not match any pattern: " + quote(t.line));
        continue;
      }
      for (const auto &[name, want] : t.captures) {
        auto it = fields.find(name);
        if (it == fields.end())
          fail(t.pos, "capture '" + name + "' is unset, expected " + quote(want));
        else if (it->second != want)
          fail(t.pos, "capture '" + name + "' is " + quote(it->second) + ", expected " + quote(want));
      }
    }
    for (const auto &t : s.must_not_match) {
      sum.lines++;
      if (matches_entry(t.line, nullptr)) fail(t.pos, "must-not-match line matches: " + quote(t.line));
    }
  }
  return sum;
}

}  // namespace faultline
