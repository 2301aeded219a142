#include "diagnose/diagnosis.h"

#include <algorithm>
#include <cstring>

#include "common/hash.h"
#include "common/vocabulary.h"

namespace faultline {

namespace {

constexpr uint64_t kFingerprintVersion = 1;

bool digit(char c) { return c >= '0' && c <= '9'; }

int64_t num(const char *p, size_t n) {
  int64_t v = 0;
  for (size_t i = 0; i < n; i++) v = v * 10 + (p[i] - '0');
  return v;
}

// Reads `n` digits at p[i], advancing i; -1 if they are not all digits.
int64_t digits(const char *p, size_t len, size_t *i, size_t n) {
  if (*i + n > len) return -1;
  for (size_t k = 0; k < n; k++)
    if (!digit(p[*i + k])) return -1;
  int64_t v = num(p + *i, n);
  *i += n;
  return v;
}

int64_t key_of(int64_t month, int64_t day, int64_t h, int64_t m, int64_t s, int64_t micros) {
  if (month < 1 || month > 12 || day < 1 || day > 31 || h > 23 || m > 59 || s > 60) return -1;
  return ((((month * 32 + day) * 24 + h) * 60 + m) * 60 + s) * 1000000 + micros;
}

// "HH:MM:SS" then an optional fraction after '.' or ','.
int64_t clock_at(const char *p, size_t len, size_t i, int64_t month, int64_t day) {
  int64_t h = digits(p, len, &i, 2);
  if (h < 0 || i >= len || p[i++] != ':') return -1;
  int64_t m = digits(p, len, &i, 2);
  if (m < 0 || i >= len || p[i++] != ':') return -1;
  int64_t s = digits(p, len, &i, 2);
  if (s < 0) return -1;
  int64_t micros = 0;
  if (i < len && (p[i] == '.' || p[i] == ',')) {
    i++;
    int64_t scale = 100000;
    while (i < len && digit(p[i])) {
      micros += (p[i] - '0') * scale;
      scale /= 10;
      i++;
    }
  }
  return key_of(month, day, h, m, s, micros);
}

bool contains_id(const flatbuffers::Vector<uint32_t> *v, uint32_t x) {
  if (!v) return false;
  for (uint32_t y : *v)
    if (y == x) return true;
  return false;
}

struct Ctx {
  const Evidence &ev;
  const PackView &pack;
  Diagnosis *out;
  Vec<uint8_t> holds;       // per group
  Vec<uint8_t> present;     // per entry: 1 if some group of it holds
};

const fb::Entry *entry_of(const Ctx &c, const Group &g) {
  return g.entry < c.pack.entry_count() ? c.pack.entry(g.entry) : nullptr;
}

int64_t group_time(const Ctx &c, const Group &g) { return time_key(c.ev.str(g.first_time), g.first_time.len); }

// -1: a before b, 1: after, 0: unknown. Times when both have one, else line
// order within the same source.
int before(const Ctx &c, const Group &a, const Group &b) {
  int64_t ta = group_time(c, a), tb = group_time(c, b);
  if (ta >= 0 && tb >= 0 && ta != tb) return ta < tb ? -1 : 1;
  if (a.source == b.source && a.first_line != b.first_line) return a.first_line < b.first_line ? -1 : 1;
  return 0;
}

int cmp_str(const Evidence &ev, Str a, Str b) {
  int c = std::memcmp(ev.str(a), ev.str(b), a.len < b.len ? a.len : b.len);
  return c != 0 ? c : (a.len < b.len ? -1 : a.len > b.len ? 1 : 0);
}

// Binary search of the canonical (host, pid)-sorted map; -1 when absent.
int64_t rank_of_pid(const Evidence &ev, Str host, int64_t pid) {
  size_t lo = 0, hi = ev.pid_ranks.size();
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    const RankOfPid &x = ev.pid_ranks[mid];
    int c = cmp_str(ev, x.host, host);
    if (c == 0 && x.pid == pid) return x.rank;
    if (c < 0 || (c == 0 && x.pid < pid)) lo = mid + 1;
    else hi = mid;
  }
  return -1;
}

void compute_ranks(Ctx &c) {
  const Evidence &ev = c.ev;
  // One host (or none named) in the whole job: local rank and GPU index are the rank.
  bool single_host = true;
  Str first{};
  for (const Group &g : ev.groups) {
    if (g.host.len == 0) continue;
    if (first.len == 0) first = g.host;
    else if (!ev.str_eq(first, ev.str(g.host), g.host.len)) single_host = false;
  }
  // The job has one rank (NCCL's communicators or a stated world size): everything is rank 0.
  int64_t world = ev.world_size();
  for (const RankOfPid &x : ev.pid_ranks) world = x.nranks > world ? x.nranks : world;
  for (const Group &g : ev.groups) {
    int64_t r = g.rank;
    if (r < 0 && g.pid >= 0) r = rank_of_pid(ev, g.host, g.pid);
    if (r < 0 && single_host) r = g.local_rank >= 0 ? g.local_rank : g.device;
    if (r < 0 && world == 1) r = 0;
    c.out->group_rank.push(r);
  }
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
  for (size_t i = 0; i < c.ev.groups.size(); i++) {
    const Group &g = c.ev.groups[i];
    const fb::Entry *e = entry_of(c, g);
    if (!e || e->deprecated()) continue;
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

// NCCL progress: the collective the others timed out on (the most common
// timeout SeqNum) and a rank whose last enqueued work is below it.
void find_lagging_rank(Ctx &c) {
  // A report in the log that names the rank (desync debug, flight recorder).
  int32_t named = -1;
  for (size_t i = 0; i < c.ev.groups.size(); i++)
    if (c.ev.groups[i].culprit_rank >= 0 && (named < 0 || before(c, c.ev.groups[i], c.ev.groups[named]) < 0))
      named = static_cast<int32_t>(i);
  if (named >= 0) {
    c.out->lagging_rank = c.ev.groups[named].culprit_rank;
    c.out->lagging_how = "a report in the log names it (desync debug or flight recorder analysis)";
  }
  const auto &prog = c.ev.progress;
  int64_t seq = -1;
  uint32_t best = 0;
  for (const Progress &p : prog) {
    if (p.timeout_seq < 0) continue;
    uint32_t n = 0;
    for (const Progress &q : prog) n += q.timeout_seq == p.timeout_seq;
    if (n > best || (n == best && p.timeout_seq > seq)) best = n, seq = p.timeout_seq;
  }
  if (seq < 0) return;
  int64_t lag = -1, lag_enq = -1;
  for (const Progress &p : prog) {
    if (p.rank < 0 || p.last_enqueued < 0 || p.last_enqueued >= seq) continue;
    if (lag < 0 || p.last_enqueued < lag_enq || (p.last_enqueued == lag_enq && p.rank < lag))
      lag = p.rank, lag_enq = p.last_enqueued;
  }
  c.out->lagging_seq = seq;
  if (named >= 0) return;
  c.out->lagging_rank = lag;
  if (lag >= 0) {
    c.out->lagging_how = "its last enqueued NCCL work is below the SeqNum the others timed out on";
    return;
  }
  // Without progress figures: ranks 0..max (every rank the logs mention)
  // where all but one timed out on that SeqNum; the one that did not is
  // where the collective was never entered.
  int64_t max_rank = -1;
  for (int64_t r : c.out->group_rank) max_rank = r > max_rank ? r : max_rank;
  for (const Progress &p : prog) max_rank = p.rank > max_rank ? p.rank : max_rank;
  if (max_rank < 1 || max_rank > 4096) return;
  int64_t missing = -1, timed_out = 0;
  for (int64_t r = 0; r <= max_rank; r++) {
    bool t = false;
    for (const Progress &p : prog) t = t || (p.rank == r && p.timeout_seq == seq);
    if (t) timed_out++;
    else if (missing < 0) missing = r;
    else return;  // more than one rank did not time out
  }
  if (missing >= 0 && timed_out >= 2) {
    c.out->lagging_rank = missing;
    c.out->lagging_how = "every other rank timed out on that SeqNum and this one did not";
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
      if (contains_id(c.pack.entry(y)->causes(), x) && !contains_id(c.pack.entry(x)->causes(), y)) {
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
    return c.holds[i] && e && e->role() == fb::Role::Cause && !entry_is_generic(e) &&
           !(use_explained && explained[g.entry]);
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
    return same_line(groups[i], groups[best]) && total[groups[i].entry] < total[groups[best].entry];
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
    d->decided_by = "nccl-progress";
    line(&d->reasons, "NCCL progress: the root's rank never reached the collective the other ranks timed out on");
  } else {
    for (const LaunchHint &h : c.ev.hints)
      if (pick < 0 && h.rank >= 0 && h.signal == 0 && (pick = earliest_on(h.rank, false)) >= 0) {
        d->decided_by = "launcher-root-cause";
        line(&d->reasons, "the launcher's 'Root Cause (first observed failure)' names the same rank");
      }
    if (pick < 0) {
      pick = earliest_on(-1, true);
      if (explained_count > 0 && eligible_entries == 1) d->decided_by = "explains-others";
      else if (eligible_entries == 1) d->decided_by = "only-cause";
      else d->decided_by = "earliest";
    }
  }
  if (explained_count > 0)
    line(&d->reasons, "the root explains other failures in the log (they are listed as its consequences)");
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

// The earliest unexplained exception ending a traceback. Processes print
// tracebacks they survive (finalizers at interpreter exit, handled errors),
// so without a launcher's report of a failed worker only an exception near
// the end of its log counts as fatal.
int32_t earliest_candidate(const Ctx &c, bool worker_failed) {
  int32_t best = -1;
  for (size_t i = 0; i < c.ev.candidates.size(); i++) {
    const Candidate &x = c.ev.candidates[i];
    if (x.explained) continue;
    uint64_t lines = c.ev.sources[x.source].lines;
    if (!worker_failed && lines > kFatalTailLines && x.line < lines - kFatalTailLines) continue;
    if (best < 0) {
      best = static_cast<int32_t>(i);
      continue;
    }
    const Candidate &b = c.ev.candidates[best];
    int64_t tx = time_key(c.ev.str(x.time), x.time.len), tb = time_key(c.ev.str(b.time), b.time.len);
    if ((tx >= 0 && tb >= 0 && tx < tb) || (x.source == b.source && x.line < b.line && !(tx >= 0 && tb >= 0 && tx > tb)))
      best = static_cast<int32_t>(i);
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
      n.caused_by_root = root && contains_id(root->causes(), g.entry);
      const Group *rg = d->root_group >= 0 ? &groups[d->root_group] : nullptr;
      bool same = rg && rg->source == g.source && rg->first_line == g.first_line;
      if (same && !symptom) n.reason = "the same line as the root, read by a more general entry";
      else if (symptom) n.reason = "informational: a sign, not a failure by itself";
      else if (n.caused_by_root) n.reason = "a consequence of the root failure (the root entry lists it)";
      else if (e->role() == fb::Role::Collateral) n.reason = "collateral: printed by ranks waiting for or talking to the failed rank";
      else if (e->role() == fb::Role::Wrapper) n.reason = "wrapper: the launcher re-reports the failed worker";
      else if (d->root_group >= 0) n.reason = "another failure, not chosen as the initiating one (see confidence)";
      else n.reason = "another failure in the log";
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

void set_fingerprint(Ctx &c) {
  Diagnosis *d = c.out;
  Text &t = d->fingerprint_template;
  if (d->verdict == Verdict::kNoFailure) return;
  if (d->root_group >= 0) {
    t.add(c.ev.str(c.ev.groups[d->root_group].entry_id));
  } else if (d->root_candidate >= 0) {
    const Candidate &x = c.ev.candidates[d->root_candidate];
    t.add("unknown:");
    if (x.exception.len) template_of(c.ev.str(x.exception), x.exception.len, &t);
    else template_of(c.ev.str(x.text), x.text.len, &t);
  } else if (d->root_hint >= 0) {
    const LaunchHint &h = c.ev.hints[d->root_hint];
    t.add("unknown:exit:");
    t.add_i64(h.signal ? -h.signal : h.exitcode);
  }
  Text seed(d->alloc);
  seed.add_u64(kFingerprintVersion);
  seed.addc('\0');
  seed.add(t.data(), t.size());
  d->fingerprint = xxh64(seed.data(), seed.size());
}

}  // namespace

const char *verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kFailure: return "failure";
    case Verdict::kInconclusive: return "inconclusive";
    default: return "no-failure";
  }
}

const char *action_name(fb::Action a) {
  switch (a) {
    case fb::Action::Retry: return "retry";
    case fb::Action::ExcludeNodeAndRetry: return "exclude-node-and-retry";
    case fb::Action::FixConfig: return "fix-config";
    case fb::Action::FixCode: return "fix-code";
    case fb::Action::FixEnvironment: return "fix-environment";
    case fb::Action::AddResources: return "add-resources";
    case fb::Action::Stop: return "stop";
    default: return "investigate";
  }
}

const char *role_name(fb::Role r) {
  switch (r) {
    case fb::Role::Cause: return "cause";
    case fb::Role::Collateral: return "collateral";
    case fb::Role::Wrapper: return "wrapper";
    default: return "symptom";
  }
}

const char *severity_name(fb::Severity s) {
  switch (s) {
    case fb::Severity::Critical: return "critical";
    case fb::Severity::High: return "high";
    case fb::Severity::Medium: return "medium";
    case fb::Severity::Low: return "low";
    default: return "info";
  }
}

int64_t time_key(const char *p, size_t len) {
  if (!p || len < 8) return -1;
  size_t i = 0;
  // "YYYY-MM-DD[T ]HH:MM:SS..." (also "YYYY-MM-DD_HH:MM:SS" of torchrun)
  if (len >= 19 && p[4] == '-' && p[7] == '-') {
    i = 5;
    int64_t mo = digits(p, len, &i, 2);
    i = 8;
    int64_t dd = digits(p, len, &i, 2);
    if (mo < 0 || dd < 0 || (p[10] != 'T' && p[10] != ' ' && p[10] != '_')) return -1;
    return clock_at(p, len, 11, mo, dd);
  }
  // "MM/DD/YYYY HH:MM:SS"
  if (len >= 19 && p[2] == '/' && p[5] == '/') {
    int64_t mo = digits(p, len, &i, 2);
    i = 3;
    int64_t dd = digits(p, len, &i, 2);
    if (mo < 0 || dd < 0 || p[10] != ' ') return -1;
    return clock_at(p, len, 11, mo, dd);
  }
  // glog: "MMDD HH:MM:SS.frac", "MDD ...", "YYYYMMDD ..."
  size_t n = 0;
  while (n < len && digit(p[n])) n++;
  if ((n == 3 || n == 4 || n == 8) && n < len && p[n] == ' ') {
    const char *md = p + (n == 8 ? 4 : 0);
    size_t mdn = n == 8 ? 4 : n;
    int64_t mo = num(md, mdn - 2), dd = num(md + mdn - 2, 2);
    return clock_at(p, len, n + 1, mo, dd);
  }
  return -1;
}

void template_of(const char *s, size_t n, Text *out) {
  size_t i = 0;
  bool space = false;
  while (i < n) {
    char c = s[i];
    if (c == ' ' || c == '\t') {
      space = true;
      i++;
      continue;
    }
    if (space && out->size()) out->addc(' ');
    space = false;
    bool word_start = i == 0 || !((s[i - 1] >= 'a' && s[i - 1] <= 'z') || (s[i - 1] >= 'A' && s[i - 1] <= 'Z') || s[i - 1] == '_');
    if (c == '/' && (i == 0 || s[i - 1] == ' ' || s[i - 1] == '\'' || s[i - 1] == '"' || s[i - 1] == '(' || s[i - 1] == '=')) {
      // A path: up to a space or quote.
      while (i < n && s[i] != ' ' && s[i] != '\'' && s[i] != '"' && s[i] != ')' && s[i] != ',') i++;
      out->add("<path>");
      continue;
    }
    if (word_start && c == '0' && i + 1 < n && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
      i += 2;
      while (i < n && ((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') || (s[i] >= 'A' && s[i] <= 'F'))) i++;
      out->add("<hex>");
      continue;
    }
    if (digit(c)) {
      // A run of digits, with '.', ':' or '-' between digits (numbers, IPs, times).
      while (i < n && (digit(s[i]) || ((s[i] == '.' || s[i] == ':' || s[i] == '-' || s[i] == ',') && i + 1 < n && digit(s[i + 1])))) i++;
      out->add("<n>");
      continue;
    }
    out->addc(c);
    i++;
  }
}

bool diagnose(const Evidence &ev, const PackView &pack, Diagnosis *d) {
  Ctx c{ev, pack, d, Vec<uint8_t>(d->alloc), Vec<uint8_t>(d->alloc)};
  compute_ranks(c);
  compute_holds(c);
  if (c.holds.failed() || c.present.failed() || d->group_rank.failed()) return false;
  find_lagging_rank(c);

  int32_t root = pick_cause(c);
  if (root >= 0) {
    d->verdict = Verdict::kFailure;
    d->root_group = root;
    d->confidence += 0.6;
    line(&d->reasons, "the root is a known failure whose role is 'cause'");
  } else {
    int32_t coll = earliest_holding(c, fb::Role::Collateral);
    int32_t wrap = earliest_holding(c, fb::Role::Wrapper);
    int32_t cand = earliest_candidate(c, wrap >= 0 || c.ev.hints.size() > 0);
    if (cand >= 0 && coll >= 0) {
      // An exception printed after the collateral in the same stream is
      // usually that collateral surfacing (a re-raised timeout): drop it.
      const Candidate &x = ev.candidates[cand];
      const Group &g = ev.groups[coll];
      if (x.source == g.source && x.line > g.first_line) cand = -1;
    }
    // A wrapper that names what kind of failure it reports (a DataLoader
    // worker killed by a signal) says more than an unknown exception.
    int32_t typed_wrap = -1;
    for (size_t i = 0; i < ev.groups.size(); i++) {
      const fb::Entry *e = entry_of(c, ev.groups[i]);
      if (!c.holds[i] || !e || e->role() != fb::Role::Wrapper || entry_is_generic(e)) continue;
      if (e->type() && std::strcmp(e->type()->c_str(), kTypeOther) == 0) continue;
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
      d->decided_by = "unknown-exception";
      d->confidence = 0.35;
      line(&d->reasons, "no entry explains the failure: the earliest uncaught Python exception is reported");
    } else if (coll >= 0) {
      d->verdict = Verdict::kInconclusive;
      d->root_group = coll;
      d->decided_by = "collateral-only";
      d->confidence = 0.3;
      line(&d->reasons, "the log holds only collateral: the failure that caused it is not in this log");
    } else if (wrap >= 0) {
      d->verdict = Verdict::kFailure;
      int32_t hint = -1;
      for (size_t i = 0; i < ev.hints.size(); i++)
        if (hint < 0 && (ev.hints[i].has_exitcode || ev.hints[i].signal)) hint = static_cast<int32_t>(i);
      if (hint >= 0) {
        d->root_hint = hint;
        d->decided_by = "launcher-exit";
      } else {
        d->root_group = wrap;
        d->verdict = Verdict::kInconclusive;
        d->decided_by = "wrapper-only";
      }
      d->confidence = 0.25;
      line(&d->reasons, "only the launcher's report of a failed worker is in the log; the worker's own error is not");
    }
  }

  // Root rank and host.
  if (d->root_group >= 0) {
    const Group &g = ev.groups[d->root_group];
    d->root_rank = d->group_rank[d->root_group];
    d->root_host = g.host;
    // Printed without a rank: the rank the job-level evidence blames.
    if (d->root_rank < 0 && d->lagging_rank >= 0) d->root_rank = d->lagging_rank;
    if (d->verdict == Verdict::kInconclusive) {
      // The root names the suspect, not where the collateral was printed.
      d->root_rank = d->lagging_rank;
      d->root_host = Str{};
      if (d->root_rank < 0)
        for (const LaunchHint &h : ev.hints)
          if (h.rank >= 0 && h.signal == 0) {
            d->root_rank = h.rank;
            d->root_host = h.host;
            break;
          }
    }
  } else if (d->root_candidate >= 0) {
    d->root_rank = ev.candidates[d->root_candidate].rank;
    d->root_host = ev.candidates[d->root_candidate].host;
  } else if (d->root_hint >= 0) {
    d->root_rank = ev.hints[d->root_hint].rank;
    d->root_host = ev.hints[d->root_hint].host;
  }
  // The launcher's summary names the host of the rank it reports.
  if (d->root_rank >= 0 && d->root_host.len == 0)
    for (const LaunchHint &h : ev.hints)
      if (h.rank == d->root_rank && h.host.len) {
        d->root_host = h.host;
        break;
      }
  if (d->verdict == Verdict::kFailure && d->root_rank < 0) {
    // The launcher's summary names the failed rank even when lines carry no prefix.
    for (const LaunchHint &h : ev.hints)
      if (d->root_rank < 0 && h.rank >= 0) {
        d->root_rank = h.rank;
        if (d->root_host.len == 0) d->root_host = h.host;
      }
  }

  // Missing evidence.
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

  collect_findings(c);
  if (d->verdict == Verdict::kFailure && d->root_group >= 0) {
    uint32_t explained = 0;
    for (const Finding &f : d->collateral) explained += f.caused_by_root;
    if (explained) {
      d->confidence += 0.1;
    }
    if (d->decided_by && std::strcmp(d->decided_by, "nccl-progress") == 0) d->confidence += 0.1;
  }
  if (d->confidence > 0.99) d->confidence = 0.99;
  if (d->confidence < 0.05) d->confidence = 0.05;
  set_fingerprint(c);
  return !d->collateral.failed() && !d->findings.failed() && !d->reasons.failed() && !d->missing.failed();
}

}  // namespace faultline
