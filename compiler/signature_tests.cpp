#include "signature_tests.h"

#include <cstring>
#include <memory>
#include <vector>

#include "match/line_matcher.h"

namespace faultline {
namespace {

struct Collect {
  const PackView *pack;
  const std::string *line;
  LineMatches *out;
};

// Runs one pattern's confirmation program over `line` alone; false if it
// does not match. `slots` gets the program's slot_count offsets.
bool run_program(const PackView &pack, uint32_t pattern, const std::string &line, std::vector<int32_t> *slots) {
  ProgramView prog = pack.program(pattern);
  std::vector<uint8_t> scratch(pike_scratch_bytes(prog.insn_count, prog.slot_count) + 8);
  slots->assign(prog.slot_count, -1);
  void *aligned = reinterpret_cast<void *>((reinterpret_cast<uintptr_t>(scratch.data()) + 7) & ~uintptr_t{7});
  return pike_match(prog, reinterpret_cast<const uint8_t *>(line.data()), line.size(), aligned, slots->data());
}

void on_match(void *ctx, uint32_t pattern, const int32_t *slots) {
  auto *c = static_cast<Collect *>(ctx);
  auto &fields = c->out->patterns[pattern];
  // Exact patterns without captures come without slots (the DFA decided
  // alone): their program says where the match lies.
  std::vector<int32_t> own;
  if (!slots) {
    if (!run_program(*c->pack, pattern, *c->line, &own)) return;
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
  Collect c{&pack, &line, &m};
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
      Collect c{&pack, &line, &m};
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
      for (uint32_t p = e->first_pattern(); p < e->first_pattern() + e->pattern_count(); p++)
        vm_hit = vm_hit || run_program(pack, p, line, &slots);
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
