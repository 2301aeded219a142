// The JSON report, schema faultline.report/2 (libcore/report/REPORT.md). Fields are
// only ever added; a change of meaning bumps the schema.
#include <cstdio>
#include <cstring>

#include "diagnose/fingerprint.h"
#include "faultline.h"
#include "report/json_writer.h"
#include "report/report.h"

namespace faultline {

namespace {

const char *level_of(double c) { return c >= 0.75 ? "high" : c >= 0.5 ? "medium" : "low"; }

void string_list(JsonWriter &w, const char *key, const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>> *v) {
  w.key(key);
  w.begin_array();
  if (v)
    for (const auto *s : *v) w.string(s->c_str(), s->size());
  w.end_array();
}

void lines_list(JsonWriter &w, const char *key, const Text &t) {
  w.key(key);
  w.begin_array();
  const char *p = t.data();
  size_t n = t.size(), start = 0;
  for (size_t i = 0; i <= n; i++)
    if (i == n || p[i] == '\n') {
      if (i > start) w.string(p + start, i - start);
      start = i + 1;
    }
  w.end_array();
}

void fields_object(JsonWriter &w, const Evidence &ev, Str fields) {
  w.key("fields");
  w.begin_object();
  FieldCursor c{ev.str(fields), fields.len};
  const char *name, *val;
  size_t nl, vl;
  while (c.next(&name, &nl, &val, &vl)) w.kv(name, val, vl);  // names end in NUL in the pool
  w.end_object();
}

void ranks_array(JsonWriter &w, const int64_t *ranks, size_t n) {
  w.key("ranks");
  w.begin_array();
  for (size_t i = 0; i < n; i++) w.number(ranks[i]);
  w.end_array();
}

void rank_or_null(JsonWriter &w, const char *key, int64_t r) {
  w.key(key);
  if (r >= 0)
    w.number(r);
  else
    w.null();
}

void str_or_null(JsonWriter &w, const char *key, const Evidence &ev, Str s) {
  w.key(key);
  if (s.len)
    w.string(ev.str(s), s.len);
  else
    w.null();
}

// `pack`: the library the entry comes from ("faultline", or a site's pack
// over it), so that a stack's report says whose knowledge it applied.
void entry_basics(JsonWriter &w, const Library &lib, uint32_t index) {
  const fb::Entry *e = lib.entry(index);
  w.kv("id", e->id()->c_str());
  w.kv("title", e->title() ? e->title()->c_str() : "");
  w.kv("category", e->category() ? e->category()->c_str() : "");
  w.kv("type", e->type() ? e->type()->c_str() : "other");
  w.kv("severity", severity_name(e->severity()));
  w.kv("role", role_name(e->role()));
  w.kv("pack", lib.origin(index));
}

void where(JsonWriter &w, const Evidence &ev, uint32_t source, uint64_t line, Str time, Str text) {
  w.kv("source", ev.str(ev.sources[source].name), ev.sources[source].name.len);
  w.kv_num("line", static_cast<int64_t>(line));
  str_or_null(w, "time", ev, time);
  w.kv("text", ev.str(text), text.len);
}

// The root's place; `text` stands for the line when the root has none of its own.
void where(JsonWriter &w, const Evidence &ev, const RootSite &site, const char *text = nullptr) {
  if (!text) {
    where(w, ev, site.source, site.line, site.time, site.text);
    return;
  }
  w.kv("source", ev.str(ev.sources[site.source].name), ev.sources[site.source].name.len);
  w.kv_num("line", static_cast<int64_t>(site.line));
  w.key("time");
  w.null();
  w.kv("text", text);
}

void finding_list(JsonWriter &w, const ReportInput &in, const char *key, const Vec<Finding> &list) {
  w.key(key);
  w.begin_array();
  for (const Finding &f : list) {
    const Group &g = in.ev.groups[f.first_group];
    w.begin_object();
    entry_basics(w, in.pack, f.entry);
    ranks_array(w, f.ranks, f.rank_count);
    w.kv_num("more_ranks", f.more_ranks);
    w.kv_num("count", static_cast<int64_t>(f.count));
    w.kv("reason", f.reason);
    w.key("first");
    w.begin_object();
    rank_or_null(w, "rank", in.d.group_rank[f.first_group]);
    str_or_null(w, "host", in.ev, g.host);
    where(w, in.ev, g.source, g.first_line, g.first_time, g.first_text);
    w.end_object();
    w.end_object();
  }
  w.end_array();
}

// Which evidence decided the root's rank, and how sure that is (null: no rank).
void rank_evidence(JsonWriter &w, const Diagnosis &d) {
  w.key("rank_evidence");
  if (d.root_rank < 0 || !d.rank_source || !*d.rank_source) {
    w.null();
    return;
  }
  w.begin_object();
  w.kv("source", d.rank_source);
  w.kv("detail", d.rank_detail);
  w.kv("certainty", d.rank_certainty);
  w.end_object();
}

const char *unknown_title(const Evidence &ev, const Diagnosis &d) {
  if (d.root_candidate < 0) return "Unknown failure: a worker exited with an error no entry explains";
  switch (ev.candidates[d.root_candidate].kind) {
    case CandidateKind::kCutTraceback:
      return "Unknown failure: the log ends in a traceback without an exception line faultline reads (cut short, or an unusual "
             "exception class); its innermost frame is shown";
    case CandidateKind::kNativeStack:
      return "Unknown failure: the log ends in a C++ stack (\"frame #N\") no entry explains";
    case CandidateKind::kException:
      break;
  }
  return "Unknown failure: an uncaught exception no entry explains";
}

void root_object(JsonWriter &w, const ReportInput &in) {
  const Diagnosis &d = in.d;
  const Evidence &ev = in.ev;
  const RootSite site = root_site(ev, d);
  w.key("root");
  if (site.source == kNoEntry) {
    w.null();
    return;
  }
  w.begin_object();
  if (d.root_group >= 0) {
    const Group &g = ev.groups[d.root_group];
    entry_basics(w, in.pack, g.entry);
    rank_or_null(w, "rank", d.root_rank);
    rank_evidence(w, d);
    ranks_array(w, d.root_ranks.data(), d.root_ranks.size());
    str_or_null(w, "host", ev, d.root_host);
    where(w, ev, site);
    w.kv("pattern", ev.str(g.first_pattern), g.first_pattern.len);
    w.kv_num("count", static_cast<int64_t>(g.count));
    fields_object(w, ev, g.fields);
    if (d.root_candidate >= 0) {  // traceback-context: the exception no entry knows
      const Candidate &x = ev.candidates[d.root_candidate];
      str_or_null(w, "exception", ev, x.kind == CandidateKind::kException ? x.exception : Str{});
    }
  } else {
    w.kv("id", "unknown");
    w.kv("title", unknown_title(ev, d));
    w.kv("category", "unknown");
    w.kv("type", "other");
    w.kv("severity", "high");
    w.kv("role", "cause");
    rank_or_null(w, "rank", d.root_rank);
    rank_evidence(w, d);
    w.key("ranks");
    w.begin_array();
    if (d.root_rank >= 0) w.number(d.root_rank);
    w.end_array();
    str_or_null(w, "host", ev, d.root_host);
    w.key("fields");
    w.begin_object();
    if (d.root_candidate >= 0) {
      w.end_object();
      where(w, ev, site);
      const Candidate &x = ev.candidates[d.root_candidate];
      str_or_null(w, "exception", ev, x.kind == CandidateKind::kException ? x.exception : Str{});
    } else {
      const LaunchHint &h = ev.hints[d.root_hint];
      // Fields are text, as captured ones are.
      char num[24];
      if (h.has_exitcode) std::snprintf(num, sizeof num, "%lld", static_cast<long long>(h.exitcode)), w.kv("exitcode", num);
      if (h.signal) std::snprintf(num, sizeof num, "%lld", static_cast<long long>(h.signal)), w.kv("signal", num);
      w.end_object();
      where(w, ev, site, "Root Cause (first observed failure) reported by the launcher");
    }
    w.kv("template", d.fingerprint_template.data() ? d.fingerprint_template.data() : "", d.fingerprint_template.size());
  }
  w.end_object();
}

void action_object(JsonWriter &w, const ReportInput &in) {
  const Advice a = advice_for(in);
  w.key("action");
  w.begin_object();
  w.kv("name", a.action);
  w.kv_bool("retry", a.retry);
  w.key("exclude_hosts");
  w.begin_array();
  if (a.exclude_root_host) w.string(in.ev.str(in.d.root_host), in.d.root_host.len);
  w.end_array();
  w.kv("advice", a.text);
  w.end_object();
}

// A list of {run, <second>} commands with placeholders filled; fix commands
// (explain) and verifications (expect) share the shape.
template <typename List>
void command_list(JsonWriter &w, const ReportInput &in, const char *key, const List *list, const char *second) {
  Text run(in.d.alloc);
  w.key(key);
  w.begin_array();
  if (list)
    for (const auto *c : *list) {
      w.begin_object();
      run.clear();
      fill_placeholders(in, c->run() ? c->run()->c_str() : "", &run);
      w.kv("run", run.data() ? run.data() : "", run.size());
      const flatbuffers::String *text = nullptr;
      if constexpr (requires { c->explain(); })
        text = c->explain();
      else
        text = c->expect();
      w.kv(second, text ? text->c_str() : "");
      w.end_object();
    }
  w.end_array();
}

void knowledge(JsonWriter &w, const ReportInput &in) {
  const fb::Entry *e = in.d.verdict != Verdict::kNoFailure ? root_entry(in) : nullptr;
  w.key("fix");
  w.begin_object();
  string_list(w, "steps", e ? e->fix_steps() : nullptr);
  command_list(w, in, "commands", e ? e->fix_commands() : nullptr, "explain");
  w.end_object();
  command_list(w, in, "verify", e ? e->verify() : nullptr, "expect");
  w.key("references");
  w.begin_array();
  if (e && e->references())
    for (const auto *r : *e->references()) {
      w.begin_object();
      w.kv("title", r->title() ? r->title()->c_str() : "");
      w.kv("url", r->url() ? r->url()->c_str() : "");
      w.end_object();
    }
  w.end_array();
}

}  // namespace

void render_json(const ReportInput &in, Text *out) {
  const Diagnosis &d = in.d;
  const Evidence &ev = in.ev;
  JsonWriter w(out);
  w.begin_object();
  w.kv("schema", "faultline.report/2");
  w.kv("verdict", verdict_name(d.verdict));
  Text summary(in.d.alloc);
  render_summary(in, &summary);
  w.kv("summary", summary.data() ? summary.data() : "", summary.size());
  root_object(w, in);
  w.kv("decided_by", d.decided_by && *d.decided_by ? d.decided_by : "nothing");
  w.key("confidence");
  w.begin_object();
  w.key("score");
  w.real(d.confidence);
  w.kv("level", level_of(d.confidence));
  lines_list(w, "reasons", d.reasons);
  w.end_object();
  finding_list(w, in, "collateral", d.collateral);
  finding_list(w, in, "findings", d.findings);
  lines_list(w, "missing_evidence", d.missing);
  action_object(w, in);
  knowledge(w, in);
  w.key("fingerprint");
  if (d.verdict == Verdict::kNoFailure) {
    w.null();
  } else {
    w.begin_object();
    w.kv("algorithm", kFingerprintAlgorithm);
    w.kv("value", FingerprintText(d.fingerprint).text);
    w.end_object();
  }
  w.key("nccl_progress");
  if (d.lagging_seq >= 0) {
    w.begin_object();
    w.kv_num("timeout_seq", d.lagging_seq);
    rank_or_null(w, "lagging_rank", d.lagging_rank);
    w.end_object();
  } else {
    w.null();
  }
  w.key("launcher");
  const LaunchHint *h = ev.hints.size() ? &ev.hints[0] : nullptr;
  if (h) {
    w.begin_object();
    rank_or_null(w, "rank", h->rank);
    rank_or_null(w, "local_rank", h->local_rank);
    str_or_null(w, "host", ev, h->host);
    w.key("exitcode");
    if (h->has_exitcode)
      w.number(h->exitcode);
    else
      w.null();
    w.key("signal");
    if (h->signal)
      w.number(h->signal);
    else
      w.null();
    w.kv("source", ev.str(ev.sources[h->source].name), ev.sources[h->source].name.len);
    w.kv_num("line", static_cast<int64_t>(h->line));
    w.end_object();
  } else {
    w.null();
  }
  w.key("inputs");
  w.begin_object();
  uint64_t bytes = 0, lines = 0;
  w.key("sources");
  w.begin_array();
  for (const SourceRec &s : ev.sources) {
    bytes += s.bytes;
    lines += s.lines;
    w.begin_object();
    w.kv("name", ev.str(s.name), s.name.len);
    w.kv_num("bytes", static_cast<int64_t>(s.bytes));
    w.kv_num("lines", static_cast<int64_t>(s.lines));
    w.end_object();
  }
  w.end_array();
  w.kv_num("bytes", static_cast<int64_t>(bytes));
  w.kv_num("lines", static_cast<int64_t>(lines));
  w.kv_num("dropped_events", static_cast<int64_t>(ev.dropped_events()));
  if (in.incomplete) w.kv("incomplete", in.incomplete, std::strlen(in.incomplete));
  w.end_object();
  w.key("pack");
  w.begin_object();
  const fb::Pack *top = in.pack.top().root;
  w.kv("version", top->pack_version() ? top->pack_version()->c_str() : "");
  w.kv_num("entries", in.pack.entry_count());
  // Bottom first: ours, then the packs a site stacked over it.
  w.key("layers");
  w.begin_array();
  for (uint32_t k = 0; k < in.pack.layer_count(); k++) {
    const PackView &v = in.pack.layer(k);
    char hash[17];
    std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(v.header.content_hash));
    w.begin_object();
    w.kv("name", v.root->library_name() ? v.root->library_name()->c_str() : "");
    w.kv("version", v.root->pack_version() ? v.root->pack_version()->c_str() : "");
    w.kv_num("entries", v.entry_count());
    w.kv("content_hash", hash);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  w.kv("faultline_version", fl_version_string());
  w.end_object();
  out->addc('\n');
}

}  // namespace faultline
