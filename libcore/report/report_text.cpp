// The human report: what a person reads at 3 a.m. in a terminal, and the
// one-line summary (Kubernetes termination message, CI annotations).
#include <cstring>

#include "diagnose/fingerprint.h"
#include "report/report.h"

namespace faultline {

namespace {

struct Style {
  bool color;
  const char *on(const char *code) const { return color ? code : ""; }
  const char *off() const { return color ? "\x1b[0m" : ""; }
};

constexpr const char *kBold = "\x1b[1m";
constexpr const char *kRed = "\x1b[1;31m";
constexpr const char *kYellow = "\x1b[1;33m";
constexpr const char *kGreen = "\x1b[1;32m";
constexpr const char *kDim = "\x1b[2m";

// A pack's text: packs can be anyone's, so control bytes become '?' here too.
void put(Text *out, const flatbuffers::String *s, const char *absent = "") {
  if (s)
    add_safe_text(out, s->c_str(), std::strlen(s->c_str()));
  else
    out->add(absent);
}

// The same, padded with blanks to `width` bytes and one more blank.
void put_padded(Text *out, const flatbuffers::String *s, size_t width) {
  const size_t n = s ? std::strlen(s->c_str()) : 0;
  put(out, s);
  for (size_t i = n; i < width; i++) out->addc(' ');
  out->addc(' ');
}

void where_text(Text *out, const Evidence &ev, int64_t rank, Str host, uint32_t source, uint64_t line) {
  if (rank >= 0)
    out->addf("rank %lld", static_cast<long long>(rank));
  else
    out->add("rank unknown");
  if (host.len) {
    out->add(", host ");
    add_safe(out, ev.str(host), host.len);
  }
  out->addf(", line %llu of ", static_cast<unsigned long long>(line));
  add_safe(out, ev.str(ev.sources[source].name), ev.sources[source].name.len);
}

void ranks_text(Text *out, const int64_t *ranks, size_t n, uint32_t more) {
  if (n == 0) {
    out->add("rank unknown");
    return;
  }
  out->add(n == 1 && !more ? "rank " : "ranks ");
  for (size_t i = 0; i < n; i++) {
    // Runs of consecutive ranks as a-b.
    size_t j = i;
    while (j + 1 < n && ranks[j + 1] == ranks[j] + 1) j++;
    if (i) out->addc(',');
    if (j > i + 1)
      out->addf("%lld-%lld", static_cast<long long>(ranks[i]), static_cast<long long>(ranks[j])), i = j;
    else
      out->add_i64(ranks[i]);
  }
  if (more) out->addf(" and %u more", more);
}

}  // namespace

// The summary without the input note.
static void summary_line(const ReportInput &in, Text *out) {
  const Diagnosis &d = in.d;
  out->add(verdict_name(d.verdict));
  if (d.verdict == Verdict::kNoFailure) {
    out->add(": no failure found");
    return;
  }
  out->add(": ");
  const fb::Entry *e = root_entry(in);
  if (e) {
    // Pack strings are C strings at the API (a FlatBuffers string may hold a
    // NUL), and the summary is one line: control bytes become '?'.
    const char *id = e->id()->c_str(), *type = e->type() ? e->type()->c_str() : "other";
    add_safe(out, id, std::strlen(id));
    out->add(" (");
    add_safe(out, type, std::strlen(type));
    out->addc(')');
  } else {
    out->add("unknown");
  }
  if (d.root_rank >= 0) out->addf(" on rank %lld", static_cast<long long>(d.root_rank));
  if (d.root_host.len) {
    out->add(" host ");
    add_safe(out, in.ev.str(d.root_host), d.root_host.len);
  }
  out->addf("; action %s", advice_for(in).action);
  if (d.verdict == Verdict::kInconclusive && d.lagging_rank >= 0)
    out->addf("; rank %lld holds the cause", static_cast<long long>(d.lagging_rank));
}

void render_summary(const ReportInput &in, Text *out) {
  summary_line(in, out);
  if (in.incomplete) out->add("; inputs incomplete");
}

namespace {

// The root: what failed, where, and how the diagnosis decided.
void root_section(const ReportInput &in, const Style &st, Text *out) {
  const Diagnosis &d = in.d;
  const Evidence &ev = in.ev;
  if (d.verdict == Verdict::kNoFailure) {
    out->addf("%sNo failure found%s", st.on(kGreen), st.off());
    uint64_t lines = 0;
    for (const SourceRec &s : ev.sources) lines += s.lines;
    out->addf(" in %llu line%s of %zu log%s.\n", static_cast<unsigned long long>(lines), lines == 1 ? "" : "s", ev.sources.size(),
              ev.sources.size() == 1 ? "" : "s");
    return;
  }
  const fb::Entry *e = root_entry(in);
  const char *head = d.verdict == Verdict::kFailure ? "FAILURE" : "INCONCLUSIVE";
  out->addf("%s%s%s  ", st.on(d.verdict == Verdict::kFailure ? kRed : kYellow), head, st.off());
  if (e) {
    out->add(st.on(kBold));
    put(out, e->title() ? e->title() : e->id());
    out->addf("%s\n  entry      ", st.off());
    put(out, e->id());
    out->add("  (type ");
    put(out, e->type(), "other");
    out->addf(", %s)\n", role_name(e->role()));
  } else {
    out->addf("%sUnknown failure: no entry explains it%s\n", st.on(kBold), st.off());
  }
  const RootSite site = root_site(ev, d);
  out->add("  where      ");
  if (d.root_group >= 0) {
    const Group &g = ev.groups[d.root_group];
    bool inconclusive = d.verdict == Verdict::kInconclusive;
    where_text(out, ev, inconclusive ? d.group_rank[d.root_group] : d.root_rank, inconclusive ? g.host : d.root_host, site.source,
               site.line);
    if (site.time.len) out->addf(" (%s)", ev.str(site.time));
    out->addc('\n');
    out->add("  line       ");
    add_safe(out, ev.str(site.text), site.text.len);
    out->addc('\n');
    if (d.root_candidate >= 0) {  // traceback-context: the frame that names the kind
      out->add("  raised in  ");
      add_safe(out, ev.str(g.first_text), g.first_text.len);
      out->addc('\n');
    }
    if (d.root_ranks.size() > 1) {
      out->add(inconclusive ? "  seen on    " : "  also on    ");
      ranks_text(out, d.root_ranks.data(), d.root_ranks.size(), 0);
      out->addc('\n');
    }
    if (inconclusive && d.root_rank >= 0)
      out->addf("  suspect    rank %lld (see missing evidence)\n", static_cast<long long>(d.root_rank));
  } else if (d.root_candidate >= 0) {
    where_text(out, ev, d.root_rank, d.root_host, site.source, site.line);
    out->addc('\n');
    out->add("  line       ");
    add_safe(out, ev.str(site.text), site.text.len);
    out->addc('\n');
    const CandidateKind kind = ev.candidates[d.root_candidate].kind;
    if (kind == CandidateKind::kCutTraceback)
      out->add(
          "  ends in    a traceback without its exception line (cut short, or a class no pattern reads): its innermost frame\n");
    else if (kind == CandidateKind::kNativeStack)
      out->add("  ends in    a C++ stack (\"frame #N\") whose error message no entry reads\n");
  } else if (d.root_hint >= 0) {
    const LaunchHint &h = ev.hints[d.root_hint];
    where_text(out, ev, d.root_rank, d.root_host, site.source, site.line);
    out->addc('\n');
    if (h.signal)
      out->addf("  exit       signal %lld\n", static_cast<long long>(h.signal));
    else
      out->addf("  exit       exit code %lld\n", static_cast<long long>(h.exitcode));
  }
  // Which evidence named the rank: rank_detail and rank_certainty are static text.
  if (d.root_rank >= 0 && d.rank_source && *d.rank_source) out->addf("  rank from  %s (%s)\n", d.rank_detail, d.rank_certainty);
  out->addf("  decided by %s; confidence %.2f\n", d.decided_by, d.confidence);
}

void collateral_section(const ReportInput &in, const Style &st, Text *out) {
  if (!in.d.collateral.size()) return;
  out->addf("\n%sCollateral%s (not the cause)\n", st.on(kBold), st.off());
  for (const Finding &f : in.d.collateral) {
    const fb::Entry *c = in.pack.entry(f.entry);
    out->add("  ");
    put_padded(out, c->id(), 34);
    ranks_text(out, f.ranks, f.rank_count, f.more_ranks);
    out->addf(", %llu line%s\n", static_cast<unsigned long long>(f.count), f.count == 1 ? "" : "s");
    out->addf("  %s  %s%s\n", st.on(kDim), f.reason, st.off());
  }
}

void missing_section(const ReportInput &in, const Style &st, Text *out) {
  const Text &missing = in.d.missing;
  if (!missing.size()) return;
  out->addf("\n%sMissing evidence%s\n  ", st.on(kBold), st.off());
  for (size_t i = 0; i < missing.size(); i++) {
    char c = missing[i];
    if (c == '\n')
      out->add("\n  ");
    else
      add_safe(out, &c, 1);
  }
  out->addc('\n');
}

// Commands with their placeholders filled, each with its explanation line.
template <typename List>
void command_lines(const ReportInput &in, const List *list, const char *label, const Style &st, Text *out) {
  if (!list) return;
  Text run(in.d.alloc);
  for (const auto *c : *list) {
    run.clear();
    fill_placeholders(in, c->run() ? c->run()->c_str() : "", &run);
    out->add("    $ ");
    out->add(run.data() ? run.data() : "", run.size());
    out->addc('\n');
    const flatbuffers::String *text = nullptr;
    if constexpr (requires { c->explain(); })
      text = c->explain();
    else
      text = c->expect();
    if (!text) continue;
    out->addf("      %s%s", st.on(kDim), label);
    put(out, text);
    out->addf("%s\n", st.off());
  }
}

// What to do about a known failure: summary, steps, commands, verification.
void fix_section(const ReportInput &in, const Style &st, Text *out) {
  const fb::Entry *e = root_entry(in);
  if (!e || in.d.verdict != Verdict::kFailure) return;
  out->addf("\n%sWhat to do%s: %s\n", st.on(kBold), st.off(), action_name(e->action()));
  if (e->summary()) {
    out->add("  ");
    put(out, e->summary());
    out->addc('\n');
  }
  if (e->fix_steps()) {
    int n = 1;
    for (const auto *s : *e->fix_steps()) {
      out->addf("  %d. ", n++);
      put(out, s);
      out->addc('\n');
    }
  }
  command_lines(in, e->fix_commands(), "", st, out);
  if (e->verify() && e->verify()->size()) {
    out->addf("\n%sVerify%s\n", st.on(kBold), st.off());
    command_lines(in, e->verify(), "expect: ", Style{false}, out);
  }
  if (e->references() && e->references()->size()) {
    const auto *r = e->references()->Get(0);
    out->add("\n  More: faultline explain ");
    put(out, e->id());
    out->add("  |  ");
    put(out, r->url());
    out->addc('\n');
  }
}

void notes_section(const ReportInput &in, const Style &st, Text *out) {
  if (!in.d.findings.size()) return;
  out->addf("\n%sNotes%s (informational)\n", st.on(kBold), st.off());
  for (const Finding &f : in.d.findings) {
    const fb::Entry *c = in.pack.entry(f.entry);
    out->add("  ");
    put_padded(out, c->id(), 34);
    out->addf("%llu line%s\n", static_cast<unsigned long long>(f.count), f.count == 1 ? "" : "s");
  }
}

void closing_lines(const ReportInput &in, const Style &st, Text *out) {
  if (in.d.verdict != Verdict::kNoFailure)
    out->addf("\n%sfingerprint %s%s\n", st.on(kDim), FingerprintText(in.d.fingerprint).text, st.off());
  if (in.incomplete) {
    out->addf("\n%sIncomplete input:%s ", st.on(kYellow), st.off());
    add_safe(out, in.incomplete, std::strlen(in.incomplete));
    out->add("; this diagnosis covers only what was read.\n");
  }
}

}  // namespace

void render_text(const ReportInput &in, bool color, Text *out) {
  const Style st{color};
  root_section(in, st, out);
  collateral_section(in, st, out);
  missing_section(in, st, out);
  fix_section(in, st, out);
  notes_section(in, st, out);
  closing_lines(in, st, out);
}

}  // namespace faultline
