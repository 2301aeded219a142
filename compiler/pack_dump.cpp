#include "pack_dump.h"

#include <set>
#include <string>

#include "common/hash.h"
#include "taxonomy.h"

namespace faultline {
namespace {

std::string s(const flatbuffers::String *v) { return v ? v->str() : ""; }

// One-line text with newlines escaped, so every field stays on its line.
std::string one_line(const std::string &t) {
  std::string out;
  for (char c : t) {
    if (c == '\n')
      out += "\\n";
    else if (c == '\\')
      out += "\\\\";
    else
      out += c;
  }
  while (!out.empty() && out.back() == 'n' && out.size() >= 2 && out[out.size() - 2] == '\\') out.resize(out.size() - 2);
  return out;
}

std::string set_text(const uint8_t *bits) {
  std::string out = "[";
  for (int b = 0; b < 256;) {
    if (!((bits[b / 8] >> (b % 8)) & 1)) {
      b++;
      continue;
    }
    int e = b;
    while (e + 1 < 256 && ((bits[(e + 1) / 8] >> ((e + 1) % 8)) & 1)) e++;
    auto ch = [](int c) {
      char buf[8];
      if (c > 32 && c < 127 && c != ']' && c != '\\' && c != '-')
        std::snprintf(buf, sizeof buf, "%c", c);
      else
        std::snprintf(buf, sizeof buf, "\\x%02x", c);
      return std::string(buf);
    };
    out += ch(b);
    if (e > b) out += "-" + ch(e);
    b = e + 1;
  }
  return out + "]";
}

template <typename V>
void list(std::FILE *out, const char *name, const V *v) {
  std::fprintf(out, "  %s:\n", name);
  if (v)
    for (uint32_t i = 0; i < v->size(); i++) std::fprintf(out, "    - %s\n", one_line(v->Get(i)->str()).c_str());
}

void dump_pattern(const PackView &pack, uint32_t p, std::FILE *out) {
  const fb::Pattern *pat = pack.pattern(p);
  std::fprintf(out, "  pattern %u: %s\n    regex: %s\n    source: %s\n    pieces: %u%s\n", p, s(pat->name()).c_str(),
               s(pat->regex()).c_str(), one_line(s(pat->source())).c_str(), pat->piece_count(), pat->exact() ? " (exact)" : "");
  DfaView whole;
  if (pack.confirm_dfa(p, &whole))
    std::fprintf(out, "    confirm DFA: %u states, %u classes\n", whole.state_count, whole.class_count);
  std::fprintf(out, "    captures:");
  for (const auto *n : *pat->capture_names()) std::fprintf(out, " %s", n->c_str());
  std::fprintf(out, "\n    program:\n");
  std::string dis = disassemble(pack.program(p));
  size_t start = 0;
  while (start < dis.size()) {
    size_t nl = dis.find('\n', start);
    std::fprintf(out, "      %s\n", dis.substr(start, nl - start).c_str());
    start = nl + 1;
  }
}

}  // namespace

std::string disassemble(const ProgramView &p) {
  std::string out;
  static const char *asserts[] = {"line-start", "line-end", "word-boundary", "not-word-boundary"};
  for (uint32_t pc = 0; pc < p.insn_count; pc++) {
    uint32_t w0 = p.insns[2 * pc], y = p.insns[2 * pc + 1], x = insn_x(w0);
    char buf[512];
    switch (insn_op(w0)) {
      case kOpByte:
        if (x > 32 && x < 127)
          std::snprintf(buf, sizeof buf, "%u: byte '%c'", pc, static_cast<char>(x));
        else
          std::snprintf(buf, sizeof buf, "%u: byte 0x%02x", pc, x);
        break;
      case kOpClass:
        std::snprintf(buf, sizeof buf, "%u: class %s", pc, set_text(p.classes + 32 * x).c_str());
        break;
      case kOpAny:
        std::snprintf(buf, sizeof buf, "%u: any", pc);
        break;
      case kOpSplit:
        std::snprintf(buf, sizeof buf, "%u: split %u, %u", pc, x, y);
        break;
      case kOpJump:
        std::snprintf(buf, sizeof buf, "%u: jump %u", pc, x);
        break;
      case kOpSave:
        std::snprintf(buf, sizeof buf, "%u: save %u", pc, x);
        break;
      case kOpAssert:
        std::snprintf(buf, sizeof buf, "%u: assert %s", pc, x < 4 ? asserts[x] : "?");
        break;
      case kOpMatch:
        std::snprintf(buf, sizeof buf, "%u: match", pc);
        break;
      default:
        std::snprintf(buf, sizeof buf, "%u: ???", pc);
        break;
    }
    out += buf;
    out += "\n";
  }
  return out;
}

void dump_pack(const PackView &pack, std::FILE *out) {
  const PackHeader &h = pack.header;
  const fb::Pack *r = pack.root;
  std::fprintf(out, "pack:\n  format: %u.%u\n  bytes: %llu\n  content_hash: %016llx\n  pack_version: %s\n  compiler: %s\n",
               h.format_major, h.format_minor, static_cast<unsigned long long>(h.total_bytes),
               static_cast<unsigned long long>(h.content_hash), s(r->pack_version()).c_str(), s(r->compiler_version()).c_str());
  std::fprintf(out, "  entries: %u\n  patterns: %u\n  pieces: %u\n  dfas: %u\n  max_program_insns: %u\n  max_slot_count: %u\n",
               pack.entry_count(), pack.pattern_count(), r->pieces()->size(), pack.dfa_count(), r->max_program_insns(),
               r->max_slot_count());
  std::fprintf(out, "  library: %s\n  build_time: %llu\n", s(r->library_name()).c_str(),
               static_cast<unsigned long long>(r->build_time()));
  if (const fb::Base *b = r->base()) {
    std::fprintf(out, "  base: %s %s\n", s(b->name()).c_str(), s(b->versions()).c_str());
    list(out, "disables", b->disables());
  }
  if (const fb::LiteralFilter *lf = r->literal_filter())
    std::fprintf(out, "  literal filter: stride %u, %u long keys, %u short keys, %s, bits xxh64 %016llx\n", lf->stride(),
                 lf->long_keys() ? lf->long_keys()->size() : 0, lf->short_keys() ? lf->short_keys()->size() : 0,
                 lf->complete() ? "complete" : "incomplete (off)",
                 static_cast<unsigned long long>(xxh64(lf->bits()->data(), lf->bits()->size())));
  std::fprintf(out, "\n");
  for (uint32_t i = 0; i < pack.entry_count(); i++) {
    const fb::Entry *e = pack.entry(i);
    std::fprintf(out, "entry %u: %s\n", i, s(e->id()).c_str());
    std::fprintf(out, "  file: %s\n  title: %s\n  category: %s\n  type: %s\n", s(e->source_path()).c_str(),
                 one_line(s(e->title())).c_str(), s(e->category()).c_str(), s(e->type()).c_str());
    std::fprintf(out, "  severity: %s\n  role: %s\n  action: %s\n  deprecated: %s\n",
                 std::string(taxonomy::severities()[static_cast<int>(e->severity())]).c_str(),
                 std::string(taxonomy::roles()[static_cast<int>(e->role())]).c_str(),
                 std::string(taxonomy::actions()[static_cast<int>(e->action())]).c_str(), e->deprecated() ? "true" : "false");
    if (e->overrides()) std::fprintf(out, "  overrides: true\n");
    list(out, "external_related", e->external_related());
    list(out, "external_causes", e->external_causes());
    const fb::Condition *c = e->condition();
    std::fprintf(out, "  condition: require %s, min_count %u, scope %s\n", c->require() == fb::Require::All ? "all" : "any",
                 c->min_count(), c->scope() == fb::Scope::Job ? "job" : "rank");
    for (int f = 0; f < static_cast<int>(taxonomy::job_facts().size()); f++) {
      if (e->context_required() & (1u << f))
        std::fprintf(out, "  condition requires: %s\n", std::string(taxonomy::job_facts()[f]).c_str());
      if (e->context_excluded() & (1u << f))
        std::fprintf(out, "  condition unless: %s\n", std::string(taxonomy::job_facts()[f]).c_str());
    }
    list(out, "tags", e->tags());
    list(out, "affects", e->affects());
    if (e->versions())
      for (const auto *v : *e->versions())
        std::fprintf(out, "  version: %s %s %s\n", s(v->component()).c_str(), s(v->range()).c_str(),
                     one_line(s(v->note())).c_str());
    std::fprintf(out, "  summary: %s\n  mechanism: %s\n  root_cause: %s\n  fingerprint: %s\n", one_line(s(e->summary())).c_str(),
                 one_line(s(e->mechanism())).c_str(), one_line(s(e->root_cause())).c_str(),
                 one_line(s(e->fingerprint())).c_str());
    std::fprintf(out, "  symptoms:\n");
    for (const auto *x : *e->symptoms())
      std::fprintf(out, "    - %s\n      why: %s\n", one_line(s(x->observe())).c_str(), one_line(s(x->why())).c_str());
    list(out, "confirm", e->confirm());
    list(out, "fix_steps", e->fix_steps());
    std::fprintf(out, "  fix_commands:\n");
    for (const auto *x : *e->fix_commands())
      std::fprintf(out, "    - $ %s\n      # %s\n", one_line(s(x->run())).c_str(), one_line(s(x->explain())).c_str());
    std::fprintf(out, "  verify:\n");
    for (const auto *x : *e->verify())
      std::fprintf(out, "    - $ %s\n      expect: %s\n", one_line(s(x->run())).c_str(), one_line(s(x->expect())).c_str());
    if (e->code_examples())
      for (const auto *x : *e->code_examples())
        std::fprintf(out, "  code_example %s (%s): %s\n    why: %s\n", s(x->stack()).c_str(), s(x->language()).c_str(),
                     one_line(s(x->code())).c_str(), one_line(s(x->why())).c_str());
    if (e->answers())
      for (const auto *x : *e->answers()) {
        const auto q = static_cast<size_t>(x->question());
        std::fprintf(out, "  answer %s: %s\n",
                     q < taxonomy::questions().size() ? std::string(taxonomy::questions()[q]).c_str() : "?",
                     one_line(s(x->text())).c_str());
      }
    list(out, "prevention", e->prevention());
    std::fprintf(out, "  references:\n");
    for (const auto *x : *e->references())
      std::fprintf(out, "    - %s <%s>\n", one_line(s(x->title())).c_str(), s(x->url()).c_str());
    std::fprintf(out, "  related:");
    for (uint32_t k : *e->related()) std::fprintf(out, " %s", s(pack.entry(k)->id()).c_str());
    std::fprintf(out, "\n  causes:");
    for (uint32_t k : *e->causes()) std::fprintf(out, " %s", s(pack.entry(k)->id()).c_str());
    std::fprintf(out, "\n");
    for (uint32_t p = e->first_pattern(); p < e->first_pattern() + e->pattern_count(); p++) dump_pattern(pack, p, out);
    std::fprintf(out, "\n");
  }
  for (uint32_t f = 0; r->framing() && f < r->framing()->size(); f++) {
    const fb::Framing *fr = r->framing()->Get(f);
    std::fprintf(out, "framing %u: %s\n  file: %s\n  title: %s\n  description: %s\n", f, s(fr->name()).c_str(),
                 s(fr->source_path()).c_str(), one_line(s(fr->title())).c_str(), one_line(s(fr->description())).c_str());
    for (uint32_t p = fr->first_pattern(); p < fr->first_pattern() + fr->pattern_count(); p++) dump_pattern(pack, p, out);
    std::fprintf(out, "\n");
  }
  for (uint32_t d = 0; d < pack.dfa_count(); d++) {
    DfaView v = pack.dfa(d);
    const fb::Dfa *fd = r->dfas()->Get(d);
    size_t bytes = static_cast<size_t>(v.state_count) * v.class_count * v.width;
    std::fprintf(out, "dfa %u:\n  states: %u\n  classes: %u\n  start: %u\n  accept_base: %u\n  transition_width: %u\n", d,
                 v.state_count, v.class_count, v.start, v.accept_base, v.width);
    std::fprintf(out, "  transitions_xxh64: %016llx\n  class_map:", static_cast<unsigned long long>(xxh64(v.trans, bytes)));
    for (int b = 0; b < 256; b++) std::fprintf(out, "%s%u", b % 32 == 0 ? "\n    " : " ", v.class_map[b]);
    std::fprintf(out, "\n  accepting_states:\n");
    for (uint32_t st = v.accept_base; st < v.state_count; st++) {
      std::fprintf(out, "    %u:", st);
      for (const uint32_t *a = v.accepts_begin(st); a != v.accepts_end(st); ++a) {
        const fb::Piece *pc = r->pieces()->Get(*a);
        const fb::Pattern *pat = pack.pattern(pc->pattern());
        std::string owner = pat->entry() == kFramingEntry ? "framing" : s(pack.entry(pat->entry())->id());
        std::fprintf(out, " %s/%s#%u", owner.c_str(), s(pat->name()).c_str(), pc->bit());
      }
      std::fprintf(out, "\n");
    }
    (void)fd;
  }
}

void print_pack_stats(const PackView &pack, std::FILE *out) {
  const fb::Pack *r = pack.root;
  std::fprintf(out, "pack %s (%s), format %u.%u, %llu bytes\n", s(r->pack_version()).c_str(), s(r->compiler_version()).c_str(),
               pack.header.format_major, pack.header.format_minor, static_cast<unsigned long long>(pack.header.total_bytes));
  std::fprintf(out, "%u entries, %u framing formats, %u patterns, %u pieces, %u DFAs\n", pack.entry_count(),
               r->framing() ? r->framing()->size() : 0, pack.pattern_count(), r->pieces()->size(), pack.dfa_count());
  if (const fb::LiteralFilter *lf = r->literal_filter())
    std::fprintf(out, "literal filter: stride %u, %u long + %u short keys, %s; short-key kernel on this CPU: %s\n", lf->stride(),
                 lf->long_keys() ? lf->long_keys()->size() : 0, lf->short_keys() ? lf->short_keys()->size() : 0,
                 lf->complete() ? "complete (lines without a key skip the DFAs)" : "incomplete: off", literal_short_kernel());
  std::fprintf(out, "\n");
  std::fprintf(out, "%-5s %8s %8s %8s %8s %12s\n", "dfa", "pieces", "states", "classes", "width", "table bytes");
  size_t total_states = 0, total_bytes = 0;
  for (uint32_t d = 0; d < pack.dfa_count(); d++) {
    DfaView v = pack.dfa(d);
    std::set<uint32_t> pieces;
    for (uint32_t st = v.accept_base; st < v.state_count; st++)
      for (const uint32_t *a = v.accepts_begin(st); a != v.accepts_end(st); ++a) pieces.insert(*a);
    size_t bytes = static_cast<size_t>(v.state_count) * v.class_count * v.width;
    total_states += v.state_count;
    total_bytes += bytes;
    std::fprintf(out, "%-5u %8zu %8u %8u %8u %12zu\n", d, pieces.size(), v.state_count, v.class_count, v.width, bytes);
  }
  std::fprintf(out, "%-5s %8u %8zu %8s %8s %12zu\n\n", "all", r->pieces()->size(), total_states, "", "", total_bytes);
  std::fprintf(out, "%-44s %-28s %6s %6s %6s %8s\n", "entry", "pattern", "pieces", "insns", "exact", "confirm");
  size_t confirm_patterns = 0, confirm_bytes = 0;
  for (uint32_t p = 0; p < pack.pattern_count(); p++) {
    const fb::Pattern *pat = pack.pattern(p);
    std::string owner = pat->entry() == kFramingEntry ? "(framing)" : s(pack.entry(pat->entry())->id());
    DfaView whole;
    std::string states = "-";
    if (pack.confirm_dfa(p, &whole)) {
      states = std::to_string(whole.state_count);
      confirm_patterns++;
      confirm_bytes += static_cast<size_t>(whole.state_count) * whole.class_count * whole.width + 256;
    }
    std::fprintf(out, "%-44s %-28s %6u %6u %6s %8s\n", owner.c_str(), s(pat->name()).c_str(), pat->piece_count(),
                 pat->program()->size() / 2, pat->exact() ? "yes" : "no", states.c_str());
  }
  std::fprintf(out, "\n%zu patterns have a confirmation DFA (%zu table bytes with their class maps)\n", confirm_patterns,
               confirm_bytes);
}

}  // namespace faultline
