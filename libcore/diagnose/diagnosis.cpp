#include "diagnose/diagnosis.h"

#include <algorithm>
#include <cstring>

#include "common/vocabulary.h"
#include "diagnose/attribution.h"
#include "diagnose/fingerprint.h"
#include "diagnose/timeline.h"

namespace faultline {

namespace {

// A log without a failure: how sure that answer is.
constexpr double kNoFailureConfidence = 0.9;
// Lines from "terminate called after throwing" to the what() text it prints.
constexpr uint64_t kWhatLines = 1;
// Lines from an NCCL error code's line to the reason NCCL recorded for it:
// PyTorch's getNcclErrorDetailStr() appends "\nLast error:\n<reason>" to
// "ncclXxxError: ...", so the reason is two lines after that line and three
// after "NCCL error in: file:line, ...".
constexpr uint64_t kLastErrorLines = 3;

struct Ctx {
  const Evidence &ev;
  const Library &pack;
  Diagnosis *out;
  Vec<uint8_t> holds;    // per group
  Vec<uint8_t> present;  // per entry: 1 if some group of it holds
};

const fb::Entry *entry_of(const Ctx &c, const Group &g) {
  return g.entry < c.pack.entry_count() ? c.pack.entry(g.entry) : nullptr;
}

// -1: a before b, 1: after, 0: unknown.
int before(const Ctx &c, const Group &a, const Group &b) { return group_order(c.ev, a, b); }

// The job facts an entry's condition may require or exclude, for one group.
// One node: the lines name one host and nothing states more nodes (one
// node's log of a larger job names one host too, but NCCL's init line or
// torchrun's rendezvous says how many there are).
uint32_t facts_of(const Evidence &ev, const Group &g, int hosts) {
  uint32_t f = 0;
  if (hosts == 2 || ev.nodes() > 1) f |= static_cast<uint32_t>(fb::JobFact::MultiNode);
  if (hosts == 1 && ev.nodes() <= 1) f |= static_cast<uint32_t>(fb::JobFact::SingleNode);
  if (g.source < ev.sources.size() && ev.sources[g.source].completed_line > g.first_line)
    f |= static_cast<uint32_t>(fb::JobFact::CompletedAfter);
  return f;
}

void compute_holds(Ctx &c) {
  const uint32_t n_entries = c.pack.entry_count();
  for (size_t i = 0; i < c.ev.groups.size(); i++) c.holds.push(0);
  for (uint32_t i = 0; i < n_entries; i++) c.present.push(0);
  // Whole-job sums for `scope: job` conditions.
  Vec<uint64_t> job_count(c.out->alloc);
  Vec<uint32_t> job_mask(c.out->alloc);
  for (uint32_t i = 0; i < n_entries; i++) job_count.push(0), job_mask.push(0);
  if (c.holds.failed() || c.present.failed() || job_count.failed() || job_mask.failed()) return;
  for (const Group &g : c.ev.groups)
    if (g.entry < n_entries) job_count[g.entry] += g.count, job_mask[g.entry] |= g.pattern_mask;
  const int hosts = hosts_named(c.ev);
  for (size_t i = 0; i < c.ev.groups.size(); i++) {
    const Group &g = c.ev.groups[i];
    const fb::Entry *e = entry_of(c, g);
    if (!e || e->deprecated()) continue;
    if (e->context_required() || e->context_excluded()) {
      const uint32_t facts = facts_of(c.ev, g, hosts);
      if ((facts & e->context_required()) != e->context_required() || (facts & e->context_excluded())) continue;
    }
    const fb::Condition *cond = e->condition();
    uint32_t min_count = cond && cond->min_count() ? cond->min_count() : 1;
    bool all = cond && cond->require() == fb::Require::All;
    bool job = cond && cond->scope() == fb::Scope::Job;
    uint32_t pc = e->pattern_count() < kMaxPatternsPerEntry ? e->pattern_count() : kMaxPatternsPerEntry;
    uint32_t full = pc >= 32 ? 0xffffffffu : (1u << pc) - 1;
    uint64_t count = job ? job_count[g.entry] : g.count;
    uint32_t mask = job ? job_mask[g.entry] : g.pattern_mask;
    bool ok = count >= min_count && (!all || (mask & full) == full);
    c.holds[i] = ok;
    if (ok) c.present[g.entry] = 1;
  }
}

void add_rank(Finding *f, int64_t r) {
  if (r < 0) return;
  for (uint32_t i = 0; i < f->rank_count; i++)
    if (f->ranks[i] == r) return;
  if (f->rank_count < kMaxRanksListed) {
    uint32_t i = f->rank_count++;
    while (i > 0 && f->ranks[i - 1] > r) f->ranks[i] = f->ranks[i - 1], i--;
    f->ranks[i] = r;
  } else {
    f->more_ranks++;
  }
}

void line(Text *t, const char *s) {
  if (t->size()) t->addc('\n');
  t->add(s);
}

// Picks the root among holding cause groups; returns the group or -1.
int32_t pick_cause(Ctx &c) {
  const auto &groups = c.ev.groups;
  Diagnosis *d = c.out;
  // Entries explained by another present cause (its `causes` names them).
  uint32_t distinct = 0, explained_count = 0;
  Vec<uint8_t> explained(d->alloc);
  for (uint32_t i = 0; i < c.pack.entry_count(); i++) explained.push(0);
  for (uint32_t x = 0; x < c.pack.entry_count(); x++) {
    if (!c.present[x] || c.pack.entry(x)->role() != fb::Role::Cause || entry_is_generic(c.pack.entry(x))) continue;
    distinct++;
    for (uint32_t y = 0; y < c.pack.entry_count(); y++) {
      if (y == x || !c.present[y] || c.pack.entry(y)->role() != fb::Role::Cause) continue;
      if (c.pack.causes(y, x) && !c.pack.causes(x, y)) {
        explained[x] = 1;
        explained_count++;
        break;
      }
    }
  }
  if (distinct == 0 || explained.failed()) return -1;
  auto candidate = [&](size_t i, bool use_explained) {
    const Group &g = groups[i];
    const fb::Entry *e = entry_of(c, g);
    return c.holds[i] && e && e->role() == fb::Role::Cause && !entry_is_generic(e) && !(use_explained && explained[g.entry]);
  };
  bool use_explained = explained_count < distinct;
  // Serious causes first: drop low/info ones when a medium+ one exists.
  bool serious = false;
  for (size_t i = 0; i < groups.size(); i++)
    if (candidate(i, use_explained) && entry_of(c, groups[i])->severity() >= fb::Severity::Medium) serious = true;
  auto eligible = [&](size_t i) {
    return candidate(i, use_explained) && (!serious || entry_of(c, groups[i])->severity() >= fb::Severity::Medium);
  };
  // Lines each entry matched in the whole job: when two entries read the
  // same line (a specific OOM entry and the general one), the rarer one is
  // the more specific reading.
  Vec<uint64_t> total(d->alloc);
  for (uint32_t i = 0; i < c.pack.entry_count(); i++) total.push(0);
  for (size_t i = 0; i < groups.size(); i++)
    if (total.size() == c.pack.entry_count() && c.holds[i]) total[groups[i].entry] += groups[i].count;
  auto same_line = [&](const Group &a, const Group &b) { return a.source == b.source && a.first_line == b.first_line; };
  auto better = [&](size_t i, int32_t best) {
    if (best < 0) return true;
    int b = before(c, groups[i], groups[best]);
    if (b != 0) return b < 0;
    if (!same_line(groups[i], groups[best])) return false;
    const bool i_catch_all = entry_has_tag(entry_of(c, groups[i]), kTagCatchAll);
    const bool best_catch_all = entry_has_tag(entry_of(c, groups[best]), kTagCatchAll);
    if (i_catch_all != best_catch_all) return best_catch_all;
    return total[groups[i].entry] < total[groups[best].entry];
  };
  auto earliest_on = [&](int64_t rank, bool any_rank) {
    int32_t best = -1;
    for (size_t i = 0; i < groups.size(); i++) {
      if (!eligible(i) || (!any_rank && c.out->group_rank[i] != rank)) continue;
      if (better(i, best)) best = static_cast<int32_t>(i);
    }
    return best;
  };
  // Distinct failures: eligible entries, counting entries that first fired
  // on the same line as one.
  uint32_t eligible_entries = 0;
  {
    Vec<int32_t> first(d->alloc);
    for (uint32_t i = 0; i < c.pack.entry_count(); i++) first.push(-1);
    if (first.failed() || total.failed()) return -1;
    for (size_t i = 0; i < groups.size(); i++)
      if (eligible(i) && (first[groups[i].entry] < 0 || before(c, groups[i], groups[first[groups[i].entry]]) < 0))
        first[groups[i].entry] = static_cast<int32_t>(i);
    for (uint32_t x = 0; x < c.pack.entry_count(); x++) {
      if (first[x] < 0) continue;
      bool dup = false;
      for (uint32_t y = 0; y < x && !dup; y++) dup = first[y] >= 0 && same_line(groups[first[x]], groups[first[y]]);
      if (!dup) eligible_entries++;
    }
  }
  int32_t pick = -1;
  if (d->lagging_rank >= 0 && (pick = earliest_on(d->lagging_rank, false)) >= 0) {
    if (d->lagging_named) {
      d->decided_by = "named-by-report";
      line(&d->reasons, "a report in the log names the root's rank as the one the other ranks waited for");
    } else if (d->lagging_odd) {
      d->decided_by = "named-by-report";
      line(&d->reasons, "the ranks' collective mismatch reports name the root's rank as the one running another collective");
    } else {
      d->decided_by = "nccl-progress";
      line(&d->reasons, "NCCL progress: the root's rank never reached the collective the other ranks timed out on");
    }
  } else {
    Str host{};
    const int64_t crashed = signal_exit_rank(c.ev, &host);
    if (crashed >= 0 && (pick = earliest_on(crashed, false)) >= 0) {
      d->decided_by = "launcher-signal-exit";
      line(&d->reasons, "the launcher reports the root's rank killed by a signal");
    }
    for (const LaunchHint &h : c.ev.hints)
      if (pick < 0 && crashed < 0 && h.rank >= 0 && h.signal == 0 && !several_failed(c.ev, h.source) &&
          (pick = earliest_on(h.rank, false)) >= 0) {
        d->decided_by = "launcher-root-cause";
        line(&d->reasons, "the launcher's 'Root Cause (first observed failure)' names the same rank");
      }
    if (pick < 0) {
      pick = earliest_on(-1, true);
      if (explained_count > 0 && eligible_entries == 1)
        d->decided_by = "explains-others";
      else if (eligible_entries == 1)
        d->decided_by = "only-cause";
      else
        d->decided_by = "earliest";
    }
  }
  if (explained_count > 0) line(&d->reasons, "the root explains other failures in the log (they are listed as its consequences)");
  if (eligible_entries == 1) {
    d->confidence += 0.2;
    line(&d->reasons, "one initiating failure type in the log");
  } else {
    d->confidence -= 0.1;
    line(&d->reasons, "several unrelated failure types fired; the earliest was chosen");
  }
  return pick;
}

int32_t earliest_holding(Ctx &c, fb::Role role) {
  int32_t best = -1;
  for (size_t i = 0; i < c.ev.groups.size(); i++) {
    const fb::Entry *e = entry_of(c, c.ev.groups[i]);
    if (!c.holds[i] || !e || e->role() != role || entry_is_generic(e)) continue;
    if (best < 0 || before(c, c.ev.groups[i], c.ev.groups[best]) < 0) best = static_cast<int32_t>(i);
  }
  return best;
}

// Lines between a parent's exception and the wrapper line that introduces
// the child's own error ("Exception: ", a blank line, "-- Process 0 ...").
constexpr uint64_t kNestedErrorGap = 4;

// A candidate that only restates a child's error printed after it: a
// `nested-error` wrapper follows it closely in the same source, and a later
// candidate of that source (the child's exception) is there to read instead.
bool restates_nested_error(const Ctx &c, const Candidate &x) {
  uint64_t wrapper_line = 0;
  for (size_t i = 0; i < c.ev.groups.size() && !wrapper_line; i++) {
    const Group &g = c.ev.groups[i];
    const fb::Entry *e = entry_of(c, g);
    if (!c.holds[i] || !e || g.source != x.source || !entry_has_tag(e, kTagNestedError)) continue;
    for (uint64_t at : {g.first_line, g.last_line})
      if (at > x.line && at - x.line <= kNestedErrorGap) wrapper_line = at;
  }
  if (!wrapper_line) return false;
  for (const Candidate &y : c.ev.candidates)
    if (y.source == x.source && y.line > wrapper_line && !y.explained) return true;
  return false;
}

// The earliest unexplained fatal-looking end: an exception ending a
// traceback, a traceback cut short, a C++ stack. Processes print tracebacks
// they survive (finalizers at interpreter exit, handled errors, a retried
// step), so one the log's normal completion follows never counts, and
// without a launcher's report of a failed worker only one near the end of
// its log does.
int32_t earliest_candidate(const Ctx &c, bool worker_failed) {
  int32_t best = -1;
  for (size_t i = 0; i < c.ev.candidates.size(); i++) {
    const Candidate &x = c.ev.candidates[i];
    if (x.explained || restates_nested_error(c, x)) continue;
    const SourceRec &src = c.ev.sources[x.source];
    if (src.completed_line > x.line) continue;
    uint64_t lines = src.lines;
    if (!worker_failed && lines > kFatalTailLines && x.line < lines - kFatalTailLines) continue;
    if (best < 0) {
      best = static_cast<int32_t>(i);
      continue;
    }
    if (candidate_before(c.ev, x, c.ev.candidates[best])) best = static_cast<int32_t>(i);
  }
  return best;
}

void collect_findings(Ctx &c) {
  Diagnosis *d = c.out;
  const auto &groups = c.ev.groups;
  uint32_t root_entry = d->root_group >= 0 ? groups[d->root_group].entry : kNoEntry;
  const fb::Entry *root = root_entry != kNoEntry ? c.pack.entry(root_entry) : nullptr;
  for (size_t i = 0; i < groups.size(); i++) {
    const Group &g = groups[i];
    const fb::Entry *e = entry_of(c, g);
    if (!c.holds[i] || !e || entry_is_generic(e)) continue;
    int64_t rank = d->group_rank[i];
    if (g.entry == root_entry) {
      if (rank >= 0) d->root_ranks.push(rank);  // sorted and deduplicated below
      continue;
    }
    bool symptom = e->role() == fb::Role::Symptom;
    Vec<Finding> &list = symptom ? d->findings : d->collateral;
    Finding *f = nullptr;
    for (auto &x : list)
      if (x.entry == g.entry) f = &x;
    if (!f) {
      Finding n;
      n.entry = g.entry;
      n.first_group = static_cast<uint32_t>(i);
      n.caused_by_root = root && c.pack.causes(root_entry, g.entry);
      const Group *rg = d->root_group >= 0 ? &groups[d->root_group] : nullptr;
      bool same = rg && rg->source == g.source && rg->first_line == g.first_line;
      if (same && !symptom)
        n.reason = "the same line as the root, read by a more general entry";
      else if (symptom)
        n.reason = "informational: a sign, not a failure by itself";
      else if (n.caused_by_root)
        n.reason = "a consequence of the root failure (the root entry lists it)";
      else if (e->role() == fb::Role::Collateral)
        n.reason = "collateral: printed by ranks waiting for or talking to the failed rank";
      else if (e->role() == fb::Role::Wrapper)
        n.reason = "wrapper: the launcher re-reports the failed worker";
      else if (d->root_group >= 0)
        n.reason = "another failure, not chosen as the initiating one (see confidence)";
      else
        n.reason = "another failure in the log";
      if (!list.push(n)) return;
      f = &list.back();
    }
    f->count += g.count;
    add_rank(f, rank);
    if (before(c, g, groups[f->first_group]) < 0) f->first_group = static_cast<uint32_t>(i);
  }
  // Root ranks sorted, each once (n log n: a job may have 65536 ranks).
  std::sort(d->root_ranks.begin(), d->root_ranks.end());
  d->root_ranks.truncate(static_cast<size_t>(std::unique(d->root_ranks.begin(), d->root_ranks.end()) - d->root_ranks.begin()));
}

// A wrapper group printed after collateral of the same process: the abort
// that follows an NCCL watchdog timeout reports that timeout, not a crash
// of its own. Same process: same source, and no two different known ranks.
bool follows_collateral(const Ctx &c, size_t wrapper) {
  const Group &w = c.ev.groups[wrapper];
  const int64_t wrank = c.out->group_rank[wrapper];
  for (size_t i = 0; i < c.ev.groups.size(); i++) {
    const Group &g = c.ev.groups[i];
    const fb::Entry *e = entry_of(c, g);
    if (!c.holds[i] || !e || e->role() != fb::Role::Collateral || entry_is_generic(e) || g.source != w.source) continue;
    const int64_t grank = c.out->group_rank[i];
    if (wrank >= 0 && grank >= 0 && wrank != grank) continue;
    // The watchdog's message is the what() text printed just after "terminate called";
    // an NCCL error's reason is the "Last error:" text printed just after its code.
    if (g.first_line <= w.first_line + std::max(kWhatLines, kLastErrorLines)) return true;
  }
  return false;
}

// A warning sign the log ends in: its last line is within the last lines of
// its source and no completion follows it. A run that went on would have
// printed something after it (a step, a checkpoint, its completion).
int32_t warning_at_end(const Ctx &c) {
  int32_t best = -1;
  for (size_t i = 0; i < c.ev.groups.size(); i++) {
    const Group &g = c.ev.groups[i];
    const fb::Entry *e = entry_of(c, g);
    if (!c.holds[i] || !e || e->role() != fb::Role::Symptom || !entry_has_tag(e, kTagEarlyWarning)) continue;
    const SourceRec &src = c.ev.sources[g.source];
    if (src.completed_line > g.last_line || g.last_line + kOrphanTailLines < src.lines) continue;
    if (best < 0 || before(c, g, c.ev.groups[best]) < 0) best = static_cast<int32_t>(i);
  }
  return best;
}

// The group of the traceback-context entry an unknown exception was raised
// under: same source, its latest frame at or before the exception.
int32_t context_group(const Ctx &c, const Candidate &x) {
  if (x.context.len == 0) return -1;
  int32_t best = -1;
  for (size_t i = 0; i < c.ev.groups.size(); i++) {
    const Group &g = c.ev.groups[i];
    if (!c.holds[i] || g.source != x.source || g.first_line > x.line) continue;
    if (!c.ev.str_eq(g.entry_id, c.ev.str(x.context), x.context.len)) continue;
    if (best < 0 || g.last_line > c.ev.groups[best].last_line) best = static_cast<int32_t>(i);
  }
  return best;
}

// Without a known cause, the best of what else the log holds: a wrapper that
// names the failure's kind, an uncaught exception no entry knows, collateral
// only (inconclusive: the cause is in another log), or the launcher's exit report.
void choose_fallback_root(Ctx &c) {
  const Evidence &ev = c.ev;
  Diagnosis *d = c.out;
  int32_t coll = earliest_holding(c, fb::Role::Collateral);
  int32_t wrap = earliest_holding(c, fb::Role::Wrapper);
  int32_t cand = earliest_candidate(c, wrap >= 0 || ev.hints.size() > 0);
  if (cand >= 0 && coll >= 0) {
    // An exception printed after the collateral in the same stream is
    // usually that collateral surfacing (a re-raised timeout): drop it.
    const Candidate &x = ev.candidates[cand];
    const Group &g = ev.groups[coll];
    if (x.source == g.source && x.line > g.first_line) cand = -1;
  }
  // A wrapper that names what kind of failure it reports (a DataLoader
  // worker killed by a signal, a process aborted) says more than an unknown
  // exception, unless collateral that process printed before it explains it
  // (the NCCL watchdog's timeout, then its abort).
  int32_t typed_wrap = -1;
  for (size_t i = 0; i < ev.groups.size(); i++) {
    const fb::Entry *e = entry_of(c, ev.groups[i]);
    if (!c.holds[i] || !e || e->role() != fb::Role::Wrapper || entry_is_generic(e)) continue;
    if (e->type() && std::strcmp(e->type()->c_str(), kTypeOther) == 0) continue;
    if (follows_collateral(c, i)) continue;
    if (typed_wrap < 0 || before(c, ev.groups[i], ev.groups[typed_wrap]) < 0) typed_wrap = static_cast<int32_t>(i);
  }
  if (typed_wrap >= 0) {
    d->verdict = Verdict::kFailure;
    d->root_group = typed_wrap;
    d->decided_by = "wrapper-only";
    d->confidence = 0.4;
    line(&d->reasons, "no cause in the log; a report of the failure (a wrapper entry) names its kind");
  } else if (cand >= 0) {
    d->verdict = Verdict::kFailure;
    d->root_candidate = cand;
    if (int32_t ctx = context_group(c, ev.candidates[cand]); ctx >= 0) {
      // Where it was raised names the kind of failure (a checkpoint being
      // loaded, CUDA being initialized); the exception stays the root's line.
      d->root_group = ctx;
      d->decided_by = "traceback-context";
      d->confidence = 0.4;
      line(&d->reasons,
           "no entry knows the exception; a frame of its traceback (the code it was raised in) names the kind of failure");
    } else {
      d->decided_by = "unknown-exception";
      d->confidence = 0.35;
      line(&d->reasons, "no entry explains the failure: the earliest uncaught Python exception is reported");
    }
  } else if (coll >= 0) {
    d->verdict = Verdict::kInconclusive;
    d->root_group = coll;
    d->decided_by = "collateral-only";
    d->confidence = 0.3;
    line(&d->reasons, "the log holds only collateral: the failure that caused it is not in this log");
  } else if (wrap >= 0) {
    // The launcher says a worker failed: the run failed, of a kind this log
    // does not show.
    d->verdict = Verdict::kFailure;
    int32_t hint = -1;
    for (size_t i = 0; i < ev.hints.size(); i++)
      if (hint < 0 && (ev.hints[i].has_exitcode || ev.hints[i].signal)) hint = static_cast<int32_t>(i);
    if (hint >= 0) {
      d->root_hint = hint;
      d->decided_by = "launcher-exit";
    } else {
      d->root_group = wrap;
      d->decided_by = "wrapper-only";
    }
    d->confidence = 0.25;
    line(&d->reasons, "only the launcher's report of a failed worker is in the log; the worker's own error is not");
  } else if (int32_t warn = warning_at_end(c); warn >= 0) {
    d->verdict = Verdict::kFailure;
    d->root_group = warn;
    d->decided_by = "warning-at-end";
    d->confidence = 0.3;
    line(&d->reasons, "the log ends during a warning sign of failure; nothing after it shows the run going on");
  }
}

// Whether a group's first line is the launcher's report of a worker's exit:
// the agent's "failed (exitcode: N)" line, or a line of a failure-table record.
bool on_exit_report(const Evidence &ev, const Group &g) {
  for (const WorkerExit &x : ev.exits)
    if (x.source == g.source &&
        (x.line == g.first_line || (x.rank >= 0 && g.first_line > x.line && g.first_line - x.line <= kExitRecordReach)))
      return true;
  return false;
}

// A crash signal nothing explains. Such a crash (SIGABRT above all) usually
// ends an earlier error, so the entries that read it are collateral; but when
// the launcher saw exactly one rank die by a crash signal, an entry reads its
// report of that death, and the log holds nothing that could have caused it
// (no cause, no error the crashed rank printed itself, no wait for peers:
// timeouts abort their own process), the crash is where the failure began.
// What other ranks printed (their peer gone) follows from it.
int32_t lone_crash(Ctx &c) {
  const Evidence &ev = c.ev;
  Str host{};
  const int64_t crashed = signal_exit_rank(ev, &host);
  if (crashed < 0) return -1;
  int32_t report = -1;
  for (size_t i = 0; i < ev.groups.size(); i++) {
    const Group &g = ev.groups[i];
    const fb::Entry *e = entry_of(c, g);
    if (!c.holds[i] || !e || entry_is_generic(e) || e->role() == fb::Role::Symptom) continue;
    if (entry_waits_on_peers(e) || e->role() == fb::Role::Cause) return -1;
    const bool typed = e->type() && std::strcmp(e->type()->c_str(), kTypeOther) != 0;
    if (on_exit_report(ev, g)) {
      if (c.out->group_rank[i] == crashed && (e->role() == fb::Role::Collateral || e->role() == fb::Role::Wrapper) && typed &&
          (report < 0 || before(c, g, ev.groups[report]) < 0))
        report = static_cast<int32_t>(i);
      continue;
    }
    if (e->role() != fb::Role::Wrapper && c.out->group_rank[i] == crashed) return -1;
  }
  // An exception no entry knows, printed by the crashed rank or by a rank not named, may be what crashed it.
  for (const Candidate &x : ev.candidates)
    if (!x.explained && (x.rank < 0 || x.rank == crashed)) return -1;
  return report;
}

void choose_root(Ctx &c) {
  Diagnosis *d = c.out;
  int32_t root = pick_cause(c);
  if (root < 0 && (root = lone_crash(c)) >= 0) {
    d->verdict = Verdict::kFailure;
    d->root_group = root;
    d->decided_by = "launcher-signal-exit";
    d->confidence = 0.6;
    line(&d->reasons,
         "the launcher reports one rank killed by a crash signal, and the log holds no error that could have caused it");
    return;
  }
  if (root < 0) {
    choose_fallback_root(c);
    return;
  }
  d->verdict = Verdict::kFailure;
  d->root_group = root;
  d->confidence += 0.6;
  line(&d->reasons, "the root is a known failure whose role is 'cause'");
}

// What the report cannot say from these logs, and where to look instead.
void note_missing_evidence(Ctx &c) {
  const Evidence &ev = c.ev;
  Diagnosis *d = c.out;
  if (d->verdict == Verdict::kInconclusive) {
    Text m(d->alloc);
    if (d->lagging_rank >= 0 && d->lagging_seq < 0)
      m.addf("rank %lld is the lagging rank (%s); its log holds the cause", static_cast<long long>(d->lagging_rank),
             d->lagging_how);
    else if (d->lagging_rank >= 0)
      m.addf("rank %lld never reached collective SeqNum %lld that the other ranks timed out on (%s); its log holds the cause",
             static_cast<long long>(d->lagging_rank), static_cast<long long>(d->lagging_seq), d->lagging_how);
    else {
      const LaunchHint *h = nullptr;
      for (const LaunchHint &x : ev.hints)
        if (!h && x.rank >= 0) h = &x;
      if (h) {
        m.addf("rank %lld", static_cast<long long>(h->rank));
        if (h->host.len) m.addf(" on host %s", ev.str(h->host));
        m.add(" failed first (the launcher's root-cause report); its log holds the cause");
      } else {
        m.add("the failure that made the other ranks stop is not in this log: diagnose the logs of all ranks together");
      }
    }
    line(&d->missing, m.c_str());
  }
  if (d->verdict == Verdict::kFailure && d->root_group < 0)
    line(&d->missing, "no encyclopedia entry matches this failure: it can become a new entry (see the template)");
}

void settle_confidence(Ctx &c) {
  Diagnosis *d = c.out;
  if (d->verdict == Verdict::kNoFailure) {
    d->confidence = kNoFailureConfidence;
    return;
  }
  if (d->verdict == Verdict::kFailure && d->root_group >= 0) {
    uint32_t explained = 0;
    for (const Finding &f : d->collateral) explained += f.caused_by_root;
    if (explained) d->confidence += 0.1;
    if (d->decided_by && (!std::strcmp(d->decided_by, "nccl-progress") || !std::strcmp(d->decided_by, "named-by-report")))
      d->confidence += 0.1;
  }
  if (d->confidence > 0.99) d->confidence = 0.99;
  if (d->confidence < 0.05) d->confidence = 0.05;
}

}  // namespace

RootSite root_site(const Evidence &ev, const Diagnosis &d) {
  RootSite r;
  if (d.root_group >= 0 && d.root_candidate >= 0) {  // traceback-context: the entry's kind, the exception's line
    const Candidate &x = ev.candidates[d.root_candidate];
    r.source = x.source, r.line = x.line, r.time = x.time, r.text = x.text, r.entry = ev.groups[d.root_group].entry;
  } else if (d.root_group >= 0) {
    const Group &g = ev.groups[d.root_group];
    r.source = g.source, r.line = g.first_line, r.time = g.first_time, r.text = g.first_text, r.entry = g.entry;
  } else if (d.root_candidate >= 0) {
    const Candidate &x = ev.candidates[d.root_candidate];
    r.source = x.source, r.line = x.line, r.time = x.time, r.text = x.text;
  } else if (d.root_hint >= 0) {
    const LaunchHint &h = ev.hints[d.root_hint];
    r.source = h.source, r.line = h.line;
  }
  return r;
}

bool diagnose(const Evidence &ev, const Library &pack, Diagnosis *d) {
  Ctx c{ev, pack, d, Vec<uint8_t>(d->alloc), Vec<uint8_t>(d->alloc)};
  AgentMap agents(ev, d->alloc);
  rank_groups(ev, &agents, &d->group_rank, &d->group_rank_from);
  compute_holds(c);
  if (c.holds.failed() || c.present.failed() || d->group_rank.failed() || d->group_rank_from.failed() || agents.failed())
    return false;
  find_lagging_rank(ev, d);
  choose_root(c);
  attribute_root(ev, pack, &agents, d);
  note_missing_evidence(c);
  collect_findings(c);
  settle_confidence(c);
  fingerprint_root(ev, d);
  return !d->collateral.failed() && !d->findings.failed() && !d->reasons.failed() && !d->missing.failed();
}

}  // namespace faultline
