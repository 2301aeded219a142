// C API: diagnosers. A diagnoser owns a scanner, turns its events into
// evidence, and renders the diagnosis of that evidence on request.
#include <cstdio>
#include <cstring>
#include <new>

#include "api/handles.h"
#include "api/options.h"
#include "diagnose/diagnosis.h"
#include "diagnose/fingerprint.h"
#include "report/report.h"

using namespace faultline;

namespace {

Allocator counted(Allocator a, uint64_t *failures) {
  a.failures = failures;
  return a;
}

}  // namespace

struct fl_diagnoser {
  explicit fl_diagnoser(const Allocator &a) : alloc(counted(a, &alloc_failures)), evidence(alloc), out(alloc) {}
  // Every allocation failure is counted, wherever it is handled, so that no
  // call can return FL_OK with a result that an allocation failure changed.
  uint64_t alloc_failures = 0;
  bool evidence_lost = false;  // a failure lost evidence: every later diagnosis would be wrong
  const fl_pack *pack = nullptr;
  Allocator alloc;
  fl_scanner *scanner = nullptr;
  Evidence evidence;
  uint32_t source = kNoEntry;  // open source, kNoEntry when none
  uint64_t source_bytes = 0;
  uint64_t lines_at_begin = 0;  // scanner line count when the source began
  Text out;                     // the last report or partial
  char incomplete[256] = {0};   // why the inputs were not read whole (fl_diagnoser_set_incomplete)
  char errmsg[sizeof(ErrorText::text)] = {0};
};

namespace {

int on_event(void *ctx, const fl_event *ev) {
  auto *d = static_cast<fl_diagnoser *>(ctx);
  d->evidence.add_event(d->source, ev);
  return 0;
}

fl_scanner_stats scanner_stats(const fl_diagnoser *d) {
  fl_scanner_stats st{};
  st.struct_size = sizeof st;
  fl_scanner_get_stats(d->scanner, &st);
  return st;
}

uint64_t scanner_lines(const fl_diagnoser *d) { return scanner_stats(d).lines; }

// Why the report may miss evidence: the caller's reason, else lines on which
// the scanner's work budget ran out. NULL when the inputs were read whole.
const char *incomplete_reason(fl_diagnoser *d, char (&buf)[sizeof fl_diagnoser::incomplete]) {
  if (d->incomplete[0]) return d->incomplete;
  const uint64_t cut = scanner_stats(d).over_budget_lines;
  if (!cut) return nullptr;
  std::snprintf(buf, sizeof buf, "matching stopped early on %llu key-dense line%s (work budget)",
                static_cast<unsigned long long>(cut), cut == 1 ? "" : "s");
  return buf;
}

void close_source(fl_diagnoser *d) {
  if (d->source == kNoEntry) return;
  fl_scanner_finish(d->scanner, on_event, d);
  d->source = d->evidence.current_source();
  d->evidence.add_bytes(d->source, d->source_bytes, scanner_lines(d) - d->lines_at_begin);
  d->evidence.end_source(d->source);
  d->source = kNoEntry;
}

fl_status nomem(fl_diagnoser *d) {
  std::snprintf(d->errmsg, sizeof d->errmsg, "%s",
                d->evidence_lost ? "out of memory: evidence was lost, this diagnoser can only be freed" : "out of memory");
  return FL_E_NOMEM;
}

// Runs `step`, which adds evidence. An allocation failing in it loses some
// for good, so the diagnoser refuses every later call.
template <typename Fn>
fl_status add_evidence(fl_diagnoser *d, Fn step) {
  if (d->evidence_lost) return nomem(d);
  uint64_t failures = d->alloc_failures;
  fl_status st = step();
  if (d->alloc_failures != failures || d->evidence.failed() || st == FL_E_NOMEM) {
    d->evidence_lost = true;
    return nomem(d);
  }
  return st;
}

// Runs `step`, which only reads the evidence: a failure fails this call alone.
template <typename Fn>
fl_status read_evidence(fl_diagnoser *d, Fn step) {
  fl_status st = add_evidence(d, [&] {
    close_source(d);
    return FL_OK;
  });
  if (st != FL_OK) return st;
  uint64_t failures = d->alloc_failures;
  st = step();
  return d->alloc_failures != failures || st == FL_E_NOMEM ? nomem(d) : st;
}

// Runs the diagnosis; `run` receives the result while the evidence is canonical.
template <typename Fn>
fl_status with_diagnosis(fl_diagnoser *d, Fn run) {
  return read_evidence(d, [&] {
    d->evidence.canonicalize();
    d->evidence.infer_collective_order(d->pack->lib);
    d->evidence.canonicalize();
    if (d->evidence.failed()) return FL_E_NOMEM;
    Diagnosis diag(d->alloc);
    if (!diagnose(d->evidence, d->pack->lib, &diag)) return FL_E_NOMEM;
    return run(diag);
  });
}

}  // namespace

extern "C" {

fl_status fl_diagnoser_options_init(fl_diagnoser_options *opts, size_t size) {
  return init_options(opts, size, fl_diagnoser_options FL_DIAGNOSER_OPTIONS_INIT);
}

fl_status fl_diagnoser_create(const fl_pack *pack, const fl_diagnoser_options *opts, fl_diagnoser **out) {
  if (out) *out = nullptr;
  fl_diagnoser_options o = FL_DIAGNOSER_OPTIONS_INIT;
  if (!pack || !out || !read_options(opts, &o)) return FL_E_INVALID_ARG;
  Allocator alloc = Allocator::from(o.allocator);
  void *mem = alloc.allocate(sizeof(fl_diagnoser));
  if (!mem) return FL_E_NOMEM;
  auto *d = new (mem) fl_diagnoser(alloc);
  pack_retain(pack);
  d->pack = pack;
  d->evidence.set_pack(&pack->lib);
  fl_scanner_options so = FL_SCANNER_OPTIONS_INIT;
  so.max_line_bytes = o.max_line_bytes;
  so.allocator = o.allocator;
  fl_status st = fl_scanner_create(pack, &so, &d->scanner);
  if (st != FL_OK) {
    fl_diagnoser_free(d);
    return st;
  }
  *out = d;
  return FL_OK;
}

fl_status fl_diagnoser_begin_source(fl_diagnoser *d, const char *name) {
  if (!d || !name) return FL_E_INVALID_ARG;
  return add_evidence(d, [&] {
    close_source(d);
    uint32_t s = d->evidence.begin_source(name, std::strlen(name));
    if (s == kNoEntry) return FL_E_NOMEM;
    d->source = s;
    d->source_bytes = 0;
    d->lines_at_begin = scanner_lines(d);
    return FL_OK;
  });
}

namespace {

// Bytes given before any fl_diagnoser_begin_source are a source named "-".
fl_status begin_unnamed_source(fl_diagnoser *d) { return d->source == kNoEntry ? fl_diagnoser_begin_source(d, "-") : FL_OK; }

}  // namespace

fl_status fl_diagnoser_feed(fl_diagnoser *d, const void *bytes, size_t len) {
  if (!d || (!bytes && len)) return FL_E_INVALID_ARG;
  if (fl_status st = begin_unnamed_source(d); st != FL_OK) return st;
  return add_evidence(d, [&] {
    d->source_bytes += len;
    return fl_scanner_feed(d->scanner, bytes, len, on_event, d);
  });
}

fl_status fl_diagnoser_skip(fl_diagnoser *d, const void *bytes, size_t len) {
  if (!d || (!bytes && len)) return FL_E_INVALID_ARG;
  if (fl_status st = begin_unnamed_source(d); st != FL_OK) return st;
  return add_evidence(d, [&] {
    d->source_bytes += len;
    return fl_scanner_skip(d->scanner, bytes, len, on_event, d);
  });
}

fl_status fl_diagnoser_end_source(fl_diagnoser *d) {
  if (!d) return FL_E_INVALID_ARG;
  return add_evidence(d, [&] {
    close_source(d);
    return FL_OK;
  });
}

fl_status fl_diagnoser_set_incomplete(fl_diagnoser *d, const char *why) {
  if (!d || !why || !*why) return FL_E_INVALID_ARG;
  if (!d->incomplete[0]) std::snprintf(d->incomplete, sizeof d->incomplete, "%s", why);
  return FL_OK;
}

fl_status fl_diagnoser_partial(fl_diagnoser *d, const void **bytes, size_t *len) {
  if (bytes) *bytes = nullptr;
  if (len) *len = 0;
  if (!d || !bytes || !len) return FL_E_INVALID_ARG;
  return read_evidence(d, [&] {
    d->out.reset();
    if (!d->evidence.serialize(&d->out)) return FL_E_NOMEM;
    *bytes = d->out.data();
    *len = d->out.size();
    return FL_OK;
  });
}

fl_status fl_diagnoser_merge_partial(fl_diagnoser *d, const void *bytes, size_t len) {
  if (!d || (!bytes && len)) return FL_E_INVALID_ARG;
  fl_status st = add_evidence(d, [&] {
    close_source(d);
    return FL_OK;
  });
  if (st != FL_OK) return st;
  // Decoding fills a separate Evidence: a failure there loses nothing yet.
  Evidence other(d->alloc);
  other.set_pack(&d->pack->lib);
  ErrorText err;
  uint64_t failures = d->alloc_failures;
  if (!other.deserialize(static_cast<const uint8_t *>(bytes), len, &err)) {
    if (d->alloc_failures != failures || other.failed()) return nomem(d);
    std::snprintf(d->errmsg, sizeof d->errmsg, "%s", err.text);
    return FL_E_INVALID_ARG;
  }
  if (d->alloc_failures != failures) return nomem(d);
  return add_evidence(d, [&] {
    d->evidence.merge(other);
    return FL_OK;
  });
}

fl_status fl_diagnoser_report(fl_diagnoser *d, int format, const char **text, size_t *len) {
  if (text) *text = nullptr;
  if (len) *len = 0;
  if (!d || !text || format < FL_REPORT_JSON || format > FL_REPORT_SUMMARY) return FL_E_INVALID_ARG;
  return with_diagnosis(d, [&](const Diagnosis &diag) {
    d->out.reset();
    char why[sizeof d->incomplete];
    ReportInput in{d->evidence, d->pack->lib, diag, incomplete_reason(d, why)};
    if (format == FL_REPORT_JSON)
      render_json(in, &d->out);
    else if (format == FL_REPORT_SUMMARY)
      render_summary(in, &d->out);
    else
      render_text(in, format == FL_REPORT_TEXT_COLOR, &d->out);
    if (format == FL_REPORT_SUMMARY && d->out.size() > kMaxSummaryBytes) d->out.truncate(kMaxSummaryBytes);
    const char *s = d->out.c_str();
    if (d->out.failed()) return FL_E_NOMEM;
    *text = s;
    if (len) *len = d->out.size();
    return FL_OK;
  });
}

fl_status fl_diagnoser_result(fl_diagnoser *d, fl_diagnosis *out) {
  if (!d || !out || out->struct_size < sizeof(fl_diagnosis)) return FL_E_INVALID_ARG;
  return with_diagnosis(d, [&](const Diagnosis &diag) {
    const Evidence &ev = d->evidence;
    const ReportInput in{ev, d->pack->lib, diag, nullptr};
    const RootSite site = root_site(ev, diag);
    const Advice advice = advice_for(in);
    std::memset(reinterpret_cast<char *>(out) + sizeof(uint32_t), 0, sizeof(fl_diagnosis) - sizeof(uint32_t));
    out->verdict = diag.verdict == Verdict::kFailure        ? FL_VERDICT_FAILURE
                   : diag.verdict == Verdict::kInconclusive ? FL_VERDICT_INCONCLUSIVE
                                                            : FL_VERDICT_NO_FAILURE;
    out->entry = diag.root_group >= 0 ? site.entry : UINT32_MAX;
    out->rank = diag.root_rank;
    out->confidence = diag.confidence;
    out->retry = advice.retry;
    std::snprintf(out->action, sizeof out->action, "%s", advice.action);
    std::snprintf(out->host, sizeof out->host, "%.*s", static_cast<int>(diag.root_host.len), ev.str(diag.root_host));
    if (diag.verdict != Verdict::kNoFailure)
      std::snprintf(out->fingerprint, sizeof out->fingerprint, "%s", FingerprintText(diag.fingerprint).text);
    out->line = site.line;
    if (site.source < ev.sources.size())
      std::snprintf(out->source, sizeof out->source, "%.*s", static_cast<int>(ev.sources[site.source].name.len),
                    ev.str(ev.sources[site.source].name));
    if (diag.verdict == Verdict::kFailure && diag.root_group < 0)
      std::snprintf(out->template_text, sizeof out->template_text, "%.*s", static_cast<int>(diag.fingerprint_template.size()),
                    diag.fingerprint_template.data() ? diag.fingerprint_template.data() : "");
    return FL_OK;
  });
}

const char *fl_diagnoser_errmsg(const fl_diagnoser *d) { return d ? d->errmsg : ""; }

void fl_diagnoser_free(fl_diagnoser *d) {
  if (!d) return;
  fl_scanner_free(d->scanner);
  Allocator a = d->alloc;
  const fl_pack *pack = d->pack;
  d->~fl_diagnoser();
  a.release(d);
  pack_release(pack);
}

}  // extern "C"
