#include "diagnose/evidence.h"

#include <algorithm>
#include <cstring>

#include "common/decimal.h"
#include "common/value_type.h"
#include "common/vocabulary.h"

namespace faultline {

namespace {

// A console's only-worker rank joined with another statement of it (-1:
// none yet; -2: two differ, so none): the same in any order, as merges need.
int64_t joined_worker_rank(int64_t a, int64_t b) {
  if (a == -1) return b;
  return b == -1 || b == a ? a : -2;
}

bool name_is(const flatbuffers::String *s, const char *lit) { return s && std::strcmp(s->c_str(), lit) == 0; }

bool captured_number(const fl_event *ev, const char *name, int64_t *out) {
  for (uint32_t i = 0; i < ev->capture_count; i++)
    if (std::strcmp(ev->captures[i].name, name) == 0) return parse_decimal(ev->captures[i].value, ev->captures[i].value_len, out);
  return false;
}

// The one rank absent from a list of ranks below its highest ("5, 6, 3, 1,
// 4, 0" lacks 2), or -1: none or several absent, a rank past the bound, or
// the highest itself missing (nothing in the list could tell).
int64_t missing_rank(const char *p, size_t n) {
  constexpr int64_t kBound = 4096;
  uint64_t seen[kBound / 64] = {};
  int64_t top = -1;
  size_t i = 0;
  while (i < n) {
    while (i < n && (p[i] < '0' || p[i] > '9')) i++;
    size_t start = i;
    while (i < n && p[i] >= '0' && p[i] <= '9') i++;
    int64_t r;
    if (i == start) break;
    if (!parse_decimal(p + start, i - start, &r) || r >= kBound) return -1;
    seen[r / 64] |= uint64_t{1} << (r % 64);
    if (r > top) top = r;
  }
  int64_t missing = -1;
  for (int64_t r = 0; r < top; r++) {
    if (seen[r / 64] & (uint64_t{1} << (r % 64))) continue;
    if (missing >= 0) return -1;
    missing = r;
  }
  return missing;
}

const fl_capture *capture_text(const fl_event *ev, const char *name) {
  for (uint32_t i = 0; i < ev->capture_count; i++)
    if (std::strcmp(ev->captures[i].name, name) == 0) return &ev->captures[i];
  return nullptr;
}

uint64_t mix(uint64_t h, const void *p, size_t n) {
  const auto *b = static_cast<const uint8_t *>(p);
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
  return h;
}

// Text kept of a line or value: at most `max` bytes, not ending inside a
// UTF-8 sequence.
size_t clip(const char *p, size_t n, size_t max) {
  if (n <= max) return n;
  size_t k = max;
  while (k > 0 && (static_cast<uint8_t>(p[k]) & 0xC0) == 0x80) k--;
  return k;
}

}  // namespace

Evidence::Evidence(const Allocator &a)
    : sources(a), groups(a), hints(a), progress(a), candidates(a), pid_ranks(a), exits(a), alloc_(a), pool_(a), table_(a) {
  pool_.addc('\0');  // offset 0 is the empty string
  for (int64_t &p : pid_of_device_) p = -1;
}

void Evidence::note_device(int64_t device, int64_t pid) {
  if (device < 0 || pid < 0 || device >= static_cast<int64_t>(kDeviceSlots)) return;
  int64_t &first = pid_of_device_[device];
  if (first >= 0 && first != pid) device_shared_ = true;
  if (first < 0) first = pid;
}

bool Evidence::failed() const {
  return sources.failed() || groups.failed() || hints.failed() || progress.failed() || candidates.failed() ||
         pid_ranks.failed() || exits.failed() || pool_.failed() || table_.failed();
}

Str Evidence::intern(const char *p, size_t n) {
  if (n == 0) return Str{};
  if (pool_.size() + n + 1 > 0xffffffffu) return Str{};
  Str s{static_cast<uint32_t>(pool_.size()), static_cast<uint32_t>(n)};
  pool_.add(p, n);
  pool_.addc('\0');
  if (pool_.failed()) return Str{};
  return s;
}

bool Evidence::str_eq(Str s, const char *p, size_t n) const { return s.len == n && (n == 0 || std::memcmp(str(s), p, n) == 0); }

Str Evidence::copy_from(const Evidence &o, Str s) { return intern(o.str(s), s.len); }

uint32_t Evidence::begin_source(const char *name, size_t len) {
  uint32_t idx = kNoEntry;
  for (uint32_t i = 0; i < sources.size(); i++)
    if (str_eq(sources[i].name, name, len)) idx = i;
  if (idx == kNoEntry) {
    SourceRec rec;
    rec.name = intern(name, len);
    source_hints_from_name(name, len, &rec.rank_hint, &rec.local_rank_hint);
    if (!sources.push(rec)) return kNoEntry;
    idx = static_cast<uint32_t>(sources.size() - 1);
  }
  live_ = Live{};
  live_.source = idx;
  return idx;
}

void Evidence::end_source(uint32_t source) {
  // A stack still open at the end of its source: the process died while
  // printing it, or its last line is one no pattern reads (an exception
  // class such as torch._dynamo.exc.Unsupported). Either way it is how the
  // log ends, unless a known entry spoke after it began.
  if (source == live_.source && source < sources.size()) {
    if (live_.python.start_line && !live_.python.closed) close_stack(source, live_.python, CandidateKind::kCutTraceback);
    if (live_.native.start_line) close_stack(source, live_.native, CandidateKind::kNativeStack);
    const OpenStack &o = live_.orphan;
    if (o.start_line && sources[source].lines <= o.start_line + kOrphanTailLines)
      close_stack(source, o, CandidateKind::kException);
  }
  live_ = Live{};
}

void Evidence::close_stack(uint32_t source, const OpenStack &st, CandidateKind kind) {
  Candidate c;
  c.source = source;
  c.line = kind == CandidateKind::kNativeStack ? st.start_line : st.last_line;  // its innermost frame
  c.rank = st.rank;
  c.rank_from = st.rank_from;
  c.host = intern(st.host, st.host_len);
  c.time = intern(st.time, st.time_len);
  c.text = intern(st.text, st.text_len);
  c.exception = intern(st.frame, st.frame_len);
  c.kind = kind;
  c.explained = live_.known_line >= st.start_line;
  if (kind == CandidateKind::kCutTraceback) c.context = context_in(st.start_line, st.last_line);
  push_candidate(c);
}

Str Evidence::context_in(uint64_t first, uint64_t last) {
  if (live_.context_entry == kNoEntry || !pack_ || live_.context_line < first || live_.context_line > last) return Str{};
  const fb::Entry *e = pack_->entry(live_.context_entry);
  return e ? intern(e->id()->c_str(), e->id()->size()) : Str{};
}

// One line of a stack: `starts` opens a new one (a traceback header, or a
// C++ frame far from the previous one). The rank, host and time are those
// of the line that opened it; the text is its innermost frame: Python
// prints it last, c10 first (`innermost`: this line is, if it is a frame).
void Evidence::note_stack_line(OpenStack *st, const fl_event *ev, int64_t rank, RankFrom from, const char *host, size_t host_len,
                               bool starts, bool innermost) {
  if (starts) {
    *st = OpenStack{};
    st->start_line = ev->line_number;
    st->rank = rank;
    st->rank_from = from;
    st->host_len = clip(host, host_len, sizeof st->host);
    std::memcpy(st->host, host, st->host_len);
    st->time_len = ev->time ? clip(ev->time, ev->time_len, sizeof st->time) : 0;
    if (st->time_len) std::memcpy(st->time, ev->time, st->time_len);
  }
  st->last_line = ev->line_number;
  const fl_capture *f = capture_text(ev, capture::kFrame);
  if (starts || (innermost && f)) {
    st->text_len = clip(ev->line, ev->line_len, sizeof st->text);
    std::memcpy(st->text, ev->line, st->text_len);
    st->frame_len = f ? clip(f->value, f->value_len, sizeof st->frame) : 0;
    if (f) std::memcpy(st->frame, f->value, st->frame_len);
  }
}

void Evidence::add_bytes(uint32_t source, uint64_t bytes, uint64_t lines) {
  if (source >= sources.size()) return;
  sources[source].bytes += bytes;
  sources[source].lines += lines;
}

void Evidence::rehash() {
  size_t cap = 64;
  while (cap < groups.size() * 2 + 2) cap *= 2;  // find_group rehashes below this
  table_.clear();
  if (!table_.reserve(cap)) return;
  for (size_t i = 0; i < cap; i++) table_.push(0);
  for (uint32_t gi = 0; gi < groups.size(); gi++) {
    const Group &g = groups[gi];
    uint64_t h = 0xcbf29ce484222325ull;
    h = mix(h, &g.source, sizeof g.source);
    h = mix(h, str(g.entry_id), g.entry_id.len);
    h = mix(h, &g.rank, sizeof g.rank);
    h = mix(h, str(g.host), g.host.len);
    size_t slot = h & (cap - 1);
    while (table_[slot]) slot = (slot + 1) & (cap - 1);
    table_[slot] = gi + 1;
  }
}

uint32_t Evidence::find_group(uint32_t source, uint32_t entry, Str id, int64_t rank, const char *host, size_t host_len,
                              bool create) {
  if (table_.size() < groups.size() * 2 + 2) rehash();
  if (table_.empty()) return kNoEntry;
  uint64_t h = 0xcbf29ce484222325ull;
  h = mix(h, &source, sizeof source);
  h = mix(h, str(id), id.len);
  h = mix(h, &rank, sizeof rank);
  h = mix(h, host, host_len);
  size_t cap = table_.size();
  size_t slot = h & (cap - 1);
  while (table_[slot]) {
    const Group &g = groups[table_[slot] - 1];
    if (g.source == source && g.rank == rank && str_eq(g.entry_id, str(id), id.len) && str_eq(g.host, host, host_len))
      return table_[slot] - 1;
    slot = (slot + 1) & (cap - 1);
  }
  if (!create || groups.size() >= kMaxGroups) return kNoEntry;
  Group g;
  g.source = source;
  g.entry = entry;
  g.entry_id = id;
  g.rank = rank;
  g.host = intern(host, host_len);
  if (!groups.push(g)) return kNoEntry;
  table_[slot] = static_cast<uint32_t>(groups.size());
  return static_cast<uint32_t>(groups.size() - 1);
}

// The Python traceback a line belongs to, when a line with a rank opened it:
// a logger writes a caught traceback as one record ("[... TP0] Scheduler hit
// an exception: Traceback ..."), its prefix on the first line only, so its
// frames and exception line are that rank's. Up to its exception line, with
// no larger gap than between two frames.
const Evidence::OpenStack *Evidence::ranked_traceback_at(uint64_t line) const {
  const OpenStack &st = live_.python;
  if (!st.start_line || st.rank < 0 || line < st.start_line || line - st.start_line > kTracebackReach) return nullptr;
  if (st.closed ? st.closed_line != line : line - st.last_line > kStackLineGap) return nullptr;
  return &st;
}

void Evidence::note_candidate(uint32_t source, const fl_event *ev, int64_t rank, RankFrom from, const char *host,
                              size_t host_len) {
  if (live_.traceback_line == 0 || ev->line_number - live_.traceback_line > kTracebackReach) {
    // No traceback before it (the excerpt lost it): it counts only if the
    // log ends with it (end_source).
    note_stack_line(&live_.orphan, ev, rank, from, host, host_len, true, false);
    const fl_capture *x = capture_text(ev, capture::kException);
    const fl_capture *m = capture_text(ev, capture::kMessage);
    const char *end = m ? m->value + m->value_len : x ? x->value + x->value_len : nullptr;
    live_.orphan.frame_len = x ? clip(x->value, static_cast<size_t>(end - x->value), sizeof live_.orphan.frame) : 0;
    if (x) std::memcpy(live_.orphan.frame, x->value, live_.orphan.frame_len);
    return;
  }
  live_.python.closed = true;
  live_.python.closed_line = ev->line_number;
  Candidate c;
  c.source = source;
  c.line = ev->line_number;
  c.rank = rank;
  c.rank_from = from;
  c.host = intern(host, host_len);
  c.time = intern(ev->time, ev->time ? ev->time_len : 0);
  c.text = intern(ev->line, clip(ev->line, ev->line_len, kMaxTextBytes));
  // "Type: message" without the line's prefix: what the template is made of.
  if (const fl_capture *x = capture_text(ev, capture::kException)) {
    const fl_capture *m = capture_text(ev, capture::kMessage);
    const char *end = m ? m->value + m->value_len : x->value + x->value_len;
    size_t n = static_cast<size_t>(end - x->value);
    c.exception = intern(x->value, clip(x->value, n, kMaxTextBytes));
  }
  c.explained = live_.known_line == ev->line_number;
  c.context = context_in(live_.traceback_line, ev->line_number);
  push_candidate(c);
}

void Evidence::push_candidate(const Candidate &c) {
  // Keep the first half and the latest half of the per-source budget.
  size_t in_source = 0, first_kept = kNoEntry;
  for (size_t i = 0; i < candidates.size(); i++)
    if (candidates[i].source == c.source) {
      if (in_source == kMaxCandidatesPerSource / 2) first_kept = i;
      in_source++;
    }
  if (in_source >= kMaxCandidatesPerSource && first_kept != kNoEntry) {
    const Candidate &x = candidates[first_kept];
    pool_garbage_ += x.host.len + x.time.len + x.text.len + x.exception.len + x.context.len + 5;
    candidates.erase(first_kept);
  }
  candidates.push(c);
  // A log of endless tracebacks erases candidates all the time: their
  // strings are reclaimed once they are half the pool.
  if (pool_garbage_ > kPoolSlackBytes && pool_garbage_ * 2 > pool_.size()) compact_pool();
}

// A new pool with only the strings the records use, in place of the old.
void Evidence::compact_pool() {
  Text fresh(alloc_);
  fresh.addc('\0');
  auto keep = [&](Str &s) {
    if (s.len == 0) return;
    const uint32_t off = static_cast<uint32_t>(fresh.size());
    fresh.add(str(s), s.len);
    fresh.addc('\0');
    s.off = off;
  };
  for (SourceRec &x : sources) keep(x.name);
  for (Group &g : groups) {
    keep(g.entry_id), keep(g.host), keep(g.first_time), keep(g.first_text), keep(g.first_pattern);
    keep(g.fields);
  }
  for (LaunchHint &h : hints) keep(h.host);
  for (Progress &p : progress) keep(p.host), keep(p.op_type);
  for (Candidate &c : candidates) keep(c.host), keep(c.time), keep(c.text), keep(c.exception), keep(c.context);
  for (RankOfPid &r : pid_ranks) keep(r.host);
  for (WorkerExit &x : exits) keep(x.host);
  if (fresh.failed()) return;  // keep the old pool: it is still whole
  pool_.swap(fresh);
  pool_garbage_ = 0;
}

void Evidence::note_hint(uint32_t source, const fl_event *ev, const fb::Pattern *pat) {
  if (name_is(pat->name(), pattern::kRootCauseHeader)) {
    if (live_.hint_done) return;
    for (const auto &h : hints)
      if (h.source == source) return;
    LaunchHint h;
    h.source = source;
    h.line = ev->line_number;
    hints.push(h);
    live_.hint_line = ev->line_number;
    live_.hint_done = true;
    return;
  }
  if (live_.hint_line == 0 || ev->line_number > live_.hint_line + 12) return;
  LaunchHint *h = nullptr;
  for (auto &x : hints)
    if (x.source == source) h = &x;
  if (!h) return;
  int64_t v;
  if (h->rank < 0 && captured_number(ev, capture::kFailedRank, &v)) h->rank = v;
  if (h->local_rank < 0 && captured_number(ev, capture::kFailedLocalRank, &v)) h->local_rank = v;
  if (!h->has_exitcode && captured_number(ev, capture::kExitcode, &v)) {
    h->exitcode = v;
    h->has_exitcode = true;
  }
  if (h->signal == 0 && captured_number(ev, capture::kSignal, &v)) h->signal = v;
  if (h->host.len == 0)
    if (const fl_capture *x = capture_text(ev, capture::kFailedHost);
        x && value_fits(ValueType::kHostname, x->value, x->value_len))
      h->host = intern(x->value, x->value_len);
}

bool Evidence::in_exit_record(const fl_event *ev) const {
  return live_.record_line != 0 && live_.record < exits.size() && ev->line_number >= live_.record_line &&
         ev->line_number - live_.record_line <= kExitRecordReach;
}

void Evidence::note_exit(uint32_t source, const fl_event *ev, const fb::Pattern *pat, const char *host, size_t host_len) {
  int64_t v;
  if (name_is(pat->name(), pattern::kRootCauseHeader)) {
    live_.in_root_block = true;
    live_.record_line = 0;
    return;
  }
  if (const fl_capture *h = capture_text(ev, capture::kFailedHost)) {
    // The next record begins: "host :" stands before its "rank :".
    // Kept aside, not interned: only a record that is kept copies it (a log
    // of endless "host :" lines must not grow the pool). A value that is no
    // host name is not kept.
    const bool is_host = value_fits(ValueType::kHostname, h->value, h->value_len);
    live_.pending_host_len = is_host ? clip(h->value, h->value_len, sizeof live_.pending_host) : 0;
    std::memcpy(live_.pending_host, h->value, live_.pending_host_len);
    live_.pending_host_line = ev->line_number;
    live_.record_line = 0;
    return;
  }
  // A record is kept, and its host interned, only while there is room.
  auto add = [&](WorkerExit x, const char *h, size_t n) {
    if (exits.size() >= kMaxWorkerExits) return false;
    x.host = intern(h, n);
    return exits.push(x);
  };
  if (captured_number(ev, capture::kFailedRank, &v) && v >= 0) {
    WorkerExit x;
    x.source = source;
    x.line = ev->line_number;
    x.rank = v;
    if (captured_number(ev, capture::kFailedLocalRank, &v)) x.local_rank = v;
    if (captured_number(ev, capture::kSignal, &v)) x.signal = v;
    const bool host_line = live_.pending_host_line && ev->line_number - live_.pending_host_line <= 3;
    x.first_observed = live_.in_root_block;
    if (!(host_line ? add(x, live_.pending_host, live_.pending_host_len) : add(x, host, host_len))) return;
    live_.record = exits.size() - 1;
    live_.record_line = ev->line_number;
    return;
  }
  // torch.multiprocessing.spawn's "-- Process 3 terminated with the
  // following error:" re-prints that process's traceback: a record known by
  // its spawn index (a local rank) only.
  if (captured_number(ev, capture::kFailedLocalRank, &v) && v >= 0) {
    WorkerExit x;
    x.source = source;
    x.line = ev->line_number;
    x.local_rank = v;
    if (name_is(pat->name(), pattern::kRaisedRecordHeader)) x.exitcode = 1, x.has_exitcode = true;
    if (!add(x, host, host_len)) return;
    live_.record = exits.size() - 1;
    live_.record_line = ev->line_number;
    return;
  }
  if (captured_number(ev, capture::kAgentExitcode, &v)) {
    WorkerExit x;
    x.source = source;
    x.line = ev->line_number;
    x.exitcode = v;
    x.has_exitcode = true;
    x.signal = v < 0 ? -v : 0;
    if (captured_number(ev, capture::kLocalRank, &v)) x.local_rank = v;
    add(x, host, host_len);
    return;
  }
  if (!in_exit_record(ev)) return;
  WorkerExit &x = exits[live_.record];
  if (!x.has_exitcode && captured_number(ev, capture::kExitcode, &v)) {
    x.exitcode = v;
    x.has_exitcode = true;
    if (v < 0 && x.signal == 0) x.signal = -v;
    if (captured_number(ev, capture::kPid, &v)) x.pid = v;
  }
  if (x.signal == 0 && captured_number(ev, capture::kSignal, &v)) x.signal = v;
}

void Evidence::note_progress(uint32_t source, const fl_event *ev, int64_t rank, const char *host, size_t host_len) {
  int64_t seq = -1, enq = -1, done = -1;
  // Each figure read on its own: a line may state any of them.
  const bool has_seq = captured_number(ev, capture::kTimeoutSeq, &seq);
  const bool has_enq = captured_number(ev, capture::kLastEnqueued, &enq);
  const bool has_done = captured_number(ev, capture::kLastCompleted, &done);
  if (!has_seq && !has_enq && !has_done) return;
  // Lines of one rank come in runs: try the last record first.
  auto same = [&](const Progress &x) { return x.source == source && x.rank == rank && str_eq(x.host, host, host_len); };
  Progress *p = nullptr;
  if (live_.last_progress < progress.size() && same(progress[live_.last_progress])) p = &progress[live_.last_progress];
  for (size_t i = 0; !p && i < progress.size(); i++)
    if (same(progress[i])) p = &progress[i], live_.last_progress = i;
  if (!p) {
    if (progress.size() >= kMaxProgress) return;
    Progress n;
    n.source = source;
    n.rank = rank;
    n.host = intern(host, host_len);
    n.line = ev->line_number;
    if (!progress.push(n)) return;
    p = &progress.back();
    live_.last_progress = progress.size() - 1;
  }
  if (seq >= 0 && (p->timeout_seq < 0 || seq < p->timeout_seq)) {
    p->timeout_seq = seq;
    const fl_capture *op = capture_text(ev, capture::kOpType);
    p->op_type = op ? intern(op->value, clip(op->value, op->value_len, kMaxFieldBytes)) : Str{};
  }
  if (enq > p->last_enqueued) p->last_enqueued = enq;
  if (done > p->last_completed) p->last_completed = done;
}

void Evidence::add_event(uint32_t source, const fl_event *ev) {
  if (!pack_ || source >= sources.size() || ev->entry >= pack_->entry_count()) return;
  const fb::Entry *e = pack_->entry(ev->entry);
  const fb::Pattern *pat = pack_->pattern(ev->pattern_index);
  const SourceRec &src = sources[source];
  const char *host = ev->host ? ev->host : "";
  size_t host_len = ev->host ? clip(ev->host, ev->host_len, kMaxFieldBytes) : 0;
  // The launcher's failure table first: its records give their lines a rank.
  note_exit(source, ev, pat, host, host_len);
  int64_t rank = -1, v;
  RankFrom from = RankFrom::kNone;
  if (ev->rank >= 0) {
    rank = ev->rank, from = RankFrom::kPrefix;
  } else if (captured_number(ev, capture::kRank, &v) && v >= 0) {
    rank = v, from = RankFrom::kMessage;  // "[Rank 3] Watchdog caught ...", "on rank 3"
  } else if (src.rank_hint >= 0) {
    rank = src.rank_hint, from = RankFrom::kFileName;
  } else if (src.worker_rank >= 0 && !in_exit_record(ev)) {
    rank = src.worker_rank, from = RankFrom::kAgentWorker;
  } else if (in_exit_record(ev) && exits[live_.record].rank >= 0) {
    rank = exits[live_.record].rank, from = RankFrom::kLauncherTable;
  } else if (const OpenStack *st = ranked_traceback_at(ev->line_number)) {
    rank = st->rank, from = RankFrom::kTraceback;
  }

  if (entry_is_generic(e)) {
    if (captured_number(ev, capture::kAgentWorkerRank, &v) && v >= 0) {
      // Two agents' results in one console: whose lines are whose is unknown.
      sources[source].worker_rank = joined_worker_rank(sources[source].worker_rank, v);
    }
    // A line that says which rank its process is (NCCL's comm, tree, ring
    // and proxy lines): the communicator's size, when it states one, tells
    // the world from a subgroup.
    if (ev->pid >= 0 && captured_number(ev, capture::kCommRank, &v) && v >= 0) {
      int64_t nranks = -1;
      if (!captured_number(ev, capture::kNranks, &nranks) && !captured_number(ev, capture::kWorldSize, &nranks)) nranks = -1;
      size_t mark = pool_.size();
      if (!note_pid_rank(ev->pid, v, nranks, intern(host, host_len))) pool_.truncate(mark);
      note_device(ev->device, ev->pid);
      if (!capture_text(ev, capture::kWorldSize) && !capture_text(ev, capture::kNodes)) return;  // context only
    }
    if (captured_number(ev, capture::kWorldSize, &v) && v > world_size_) world_size_ = v;
    if (captured_number(ev, capture::kNodes, &v) && v > nodes_) nodes_ = v;
    if (entry_has_tag(e, kTagCompletion)) {
      sources[source].completed_line = ev->line_number;
      return;
    }
    if (entry_has_tag(e, kTagTracebackContext)) {
      live_.context_entry = ev->entry;
      live_.context_line = ev->line_number;
    }
    if (name_is(pat->name(), pattern::kTracebackHeader)) {
      // Another rank's traceback begins before this one reached its
      // exception line (two ranks' output interleaved): the first is kept as
      // a traceback cut short, so that both ranks are seen printing one.
      const OpenStack &open = live_.python;
      if (open.start_line && !open.closed && open.rank != rank) close_stack(source, open, CandidateKind::kCutTraceback);
      live_.traceback_line = ev->line_number;
      note_stack_line(&live_.python, ev, rank, from, host, host_len, true, false);
    } else if (name_is(pat->name(), pattern::kTracebackFrame)) {
      // Frames without a header open a traceback too: excerpts and
      // interleaved output lose the header line.
      OpenStack &st = live_.python;
      const bool starts = !st.start_line || st.closed || ev->line_number - st.last_line > kStackLineGap;
      if (starts) live_.traceback_line = ev->line_number;
      note_stack_line(&st, ev, rank, from, host, host_len, starts, true);
    } else if (name_is(pat->name(), pattern::kNativeFrame)) {
      OpenStack &st = live_.native;
      note_stack_line(&st, ev, rank, from, host, host_len, !st.start_line || ev->line_number - st.last_line > kStackLineGap,
                      false);
    } else if (name_is(pat->name(), pattern::kExceptionLine)) {
      note_candidate(source, ev, rank, from, host, host_len);
    }
  } else {
    live_.known_line = ev->line_number;
    for (size_t i = candidates.size(); i-- > 0;) {
      if (candidates[i].source != source) continue;
      if (candidates[i].line == ev->line_number) candidates[i].explained = true;
      break;
    }
  }
  note_hint(source, ev, pat);
  note_progress(source, ev, rank, host, host_len);
  note_device(ev->device, ev->pid);

  // Groups name their entry by id (partials outlive pack indices). The id is
  // interned for the lookup and the copy dropped again when the group exists.
  size_t mark = pool_.size();
  Str id = intern(e->id()->c_str(), e->id()->size());
  uint32_t gi = find_group(source, ev->entry, id, rank, host, host_len, false);
  if (gi != kNoEntry)
    pool_.truncate(mark);
  else
    gi = find_group(source, ev->entry, id, rank, host, host_len, true);
  if (gi == kNoEntry) {
    pool_.truncate(mark);  // the id interned for a group that could not be made
    dropped_events_++;
    return;
  }
  Group &g = groups[gi];
  if (g.count == 0) g.rank_from = from;
  g.count++;
  uint32_t pi = ev->pattern_index - e->first_pattern();
  if (pi < kMaxPatternsPerEntry) g.pattern_mask |= 1u << pi;
  if (g.first_line == 0) {
    g.first_line = ev->line_number;
    size_t keep = clip(ev->line, ev->line_len, kMaxTextBytes);
    g.first_text = intern(ev->line, keep);
    g.truncated = keep < ev->line_len || (ev->flags & FL_EVENT_LINE_TRUNCATED);
    g.first_time = intern(ev->time, ev->time ? clip(ev->time, ev->time_len, kMaxTimeBytes) : 0);
    const flatbuffers::String *name = pat->name();  // optional in the schema
    g.first_pattern = intern(name ? name->c_str() : "", name ? name->size() : 0);
    size_t fields_at = pool_.size();
    for (uint32_t i = 0; i < ev->capture_count && i < kMaxFields; i++) {
      const fl_capture &c = ev->captures[i];
      pool_.add(c.name, std::strlen(c.name));
      pool_.addc('\0');
      const size_t kept = clip(c.value, c.value_len, kMaxFieldBytes);
      pool_.add(c.value, kept);
      // A value cut short (here, or where the scanner cut its line) is not
      // the log's value: it ends in "…", which no command placeholder takes.
      const bool line_cut = (ev->flags & FL_EVENT_LINE_TRUNCATED) && c.value + c.value_len >= ev->line + ev->line_len;
      if (kept < c.value_len || line_cut) pool_.add("\xe2\x80\xa6", 3);
      pool_.addc('\0');
    }
    g.fields = Str{static_cast<uint32_t>(fields_at), static_cast<uint32_t>(pool_.size() - fields_at)};
  }
  g.last_line = ev->line_number;
  if (g.pid < 0) g.pid = ev->pid;
  if (g.local_rank < 0) g.local_rank = ev->local_rank >= 0 ? ev->local_rank : src.local_rank_hint;
  if (g.local_rank < 0 && captured_number(ev, capture::kLocalRank, &v)) g.local_rank = v;
  if (g.local_rank < 0 && in_exit_record(ev)) g.local_rank = exits[live_.record].local_rank;
  if (g.device < 0) g.device = ev->device;
  if (g.culprit_rank < 0 && captured_number(ev, capture::kCulpritRank, &v)) g.culprit_rank = v;
  if (g.culprit_rank < 0)
    if (const fl_capture *x = capture_text(ev, capture::kReadyRanks)) g.culprit_rank = missing_rank(x->value, x->value_len);
}

bool Evidence::note_pid_rank(int64_t pid, int64_t rank, int64_t nranks, Str host) {
  for (auto &x : pid_ranks)
    if (x.pid == pid && str_eq(x.host, str(host), host.len)) {
      if (nranks > x.nranks || (nranks == x.nranks && nranks >= 0 && rank < x.rank))
        x.rank = rank, x.nranks = nranks;
      else if (nranks == x.nranks && nranks < 0 && rank != x.rank)
        x.rank = -1;  // two ranks, no size to tell the world from a subgroup: unknown
      return false;
    }
  if (pid_ranks.size() >= kMaxPidRanks) return false;
  RankOfPid r;
  r.host = host;
  r.pid = pid;
  r.rank = rank;
  r.nranks = nranks;
  return pid_ranks.push(r);
}

void Evidence::merge_group(const Evidence &o, const Group &og, uint32_t source) {
  Str id = copy_from(o, og.entry_id);
  uint32_t entry = og.entry;
  if (pack_) {
    entry = kNoEntry;
    for (uint32_t i = 0; i < pack_->entry_count(); i++)
      if (str_eq(id, pack_->entry(i)->id()->c_str(), pack_->entry(i)->id()->size())) entry = i;
  }
  uint32_t gi = find_group(source, entry, id, og.rank, o.str(og.host), og.host.len, true);
  if (gi == kNoEntry) {
    dropped_events_ += og.count;
    return;
  }
  Group &g = groups[gi];
  bool earlier = g.first_line == 0 || og.first_line < g.first_line;
  g.count += og.count;
  g.pattern_mask |= og.pattern_mask;
  if (og.last_line > g.last_line) g.last_line = og.last_line;
  if (earlier || g.pid < 0) g.pid = og.pid >= 0 ? og.pid : g.pid;
  if (earlier || g.local_rank < 0) g.local_rank = og.local_rank >= 0 ? og.local_rank : g.local_rank;
  if (earlier || g.device < 0) g.device = og.device >= 0 ? og.device : g.device;
  if (earlier || g.culprit_rank < 0) g.culprit_rank = og.culprit_rank >= 0 ? og.culprit_rank : g.culprit_rank;
  if (earlier || g.rank_from == RankFrom::kNone) g.rank_from = og.rank_from;
  if (earlier) {
    g.first_line = og.first_line;
    g.first_text = copy_from(o, og.first_text);
    g.first_time = copy_from(o, og.first_time);
    g.first_pattern = copy_from(o, og.first_pattern);
    g.truncated = og.truncated;
    size_t mark = pool_.size();
    pool_.add(o.str(og.fields), og.fields.len);
    g.fields = Str{static_cast<uint32_t>(mark), og.fields.len};
  }
}

void Evidence::merge(const Evidence &o) {
  Vec<uint32_t> map(alloc_);
  for (const SourceRec &s : o.sources) {
    uint32_t idx = kNoEntry;
    for (uint32_t i = 0; i < sources.size(); i++)
      if (str_eq(sources[i].name, o.str(s.name), s.name.len)) idx = i;
    if (idx == kNoEntry) {
      SourceRec r = s;
      r.name = copy_from(o, s.name);
      r.bytes = r.lines = 0;
      if (!sources.push(r)) return;
      idx = static_cast<uint32_t>(sources.size() - 1);
    }
    sources[idx].bytes += s.bytes;
    sources[idx].lines += s.lines;
    sources[idx].completed_line = std::max(sources[idx].completed_line, s.completed_line);
    sources[idx].worker_rank = joined_worker_rank(sources[idx].worker_rank, s.worker_rank);
    map.push(idx);
  }
  if (map.size() != o.sources.size()) return;
  for (const Group &g : o.groups) merge_group(o, g, map[g.source]);
  for (const LaunchHint &h : o.hints) {
    LaunchHint n = h;
    n.source = map[h.source];
    n.host = copy_from(o, h.host);
    bool placed = false;
    for (auto &x : hints)
      if (x.source == n.source) {
        if (n.line < x.line) x = n;
        placed = true;
      }
    if (!placed) hints.push(n);
  }
  for (const Progress &p : o.progress) {
    Progress *mine = nullptr;
    for (auto &x : progress)
      if (x.source == map[p.source] && x.rank == p.rank && str_eq(x.host, o.str(p.host), p.host.len)) mine = &x;
    if (!mine) {
      Progress n = p;
      n.source = map[p.source];
      n.host = copy_from(o, p.host);
      n.op_type = copy_from(o, p.op_type);
      progress.push(n);
      continue;
    }
    if (p.timeout_seq >= 0 && (mine->timeout_seq < 0 || p.timeout_seq < mine->timeout_seq)) {
      mine->timeout_seq = p.timeout_seq;
      mine->op_type = copy_from(o, p.op_type);
    }
    if (p.last_enqueued > mine->last_enqueued) mine->last_enqueued = p.last_enqueued;
    if (p.last_completed > mine->last_completed) mine->last_completed = p.last_completed;
    if (p.line < mine->line) mine->line = p.line;
  }
  if (o.world_size_ > world_size_) world_size_ = o.world_size_;
  if (o.nodes_ > nodes_) nodes_ = o.nodes_;
  device_shared_ = device_shared_ || o.device_shared_;
  for (size_t i = 0; i < kDeviceSlots; i++) note_device(static_cast<int64_t>(i), o.pid_of_device_[i]);
  for (const WorkerExit &x : o.exits) {
    WorkerExit n = x;
    n.source = map[x.source];
    n.host = copy_from(o, x.host);
    bool dup = false;
    // One line may hold two records (the agent's exit and a table row).
    for (const WorkerExit &y : exits)
      dup = dup || (y.source == n.source && y.line == n.line && y.rank == n.rank && y.local_rank == n.local_rank &&
                    y.exitcode == n.exitcode && y.signal == n.signal);
    if (!dup && exits.size() < kMaxWorkerExits) exits.push(n);
  }
  for (const RankOfPid &r : o.pid_ranks) note_pid_rank(r.pid, r.rank, r.nranks, copy_from(o, r.host));
  for (const Candidate &c : o.candidates) {
    Candidate n = c;
    n.source = map[c.source];
    n.host = copy_from(o, c.host);
    n.time = copy_from(o, c.time);
    n.text = copy_from(o, c.text);
    n.exception = copy_from(o, c.exception);
    n.context = copy_from(o, c.context);
    bool dup = false;
    for (auto &x : candidates)
      if (x.source == n.source && x.line == n.line) {
        x.explained = x.explained || n.explained;
        if (x.context.len == 0) x.context = n.context;
        dup = true;
      }
    if (!dup) candidates.push(n);
  }
}

void Evidence::canonicalize() {
  // Sources by name.
  size_t n = sources.size();
  Vec<uint32_t> order(alloc_), rank_of(alloc_);
  for (uint32_t i = 0; i < n; i++) order.push(i);
  if (order.failed()) return;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const Str &x = sources[a].name, &y = sources[b].name;
    int c = std::memcmp(str(x), str(y), x.len < y.len ? x.len : y.len);
    return c != 0 ? c < 0 : x.len < y.len;
  });
  for (uint32_t i = 0; i < n; i++) rank_of.push(0);
  if (rank_of.failed()) return;
  for (uint32_t i = 0; i < n; i++) rank_of[order[i]] = i;
  Vec<SourceRec> sorted(alloc_);
  for (uint32_t i = 0; i < n; i++) sorted.push(sources[order[i]]);
  if (sorted.failed()) return;
  sources.swap(sorted);
  for (auto &g : groups) g.source = rank_of[g.source];
  for (auto &h : hints) h.source = rank_of[h.source];
  for (auto &p : progress) p.source = rank_of[p.source];
  for (auto &c : candidates) c.source = rank_of[c.source];
  for (auto &x : exits) x.source = rank_of[x.source];
  if (live_.source < n) live_.source = rank_of[live_.source];

  auto cmp_str = [&](Str a, Str b) {
    int c = std::memcmp(str(a), str(b), a.len < b.len ? a.len : b.len);
    return c != 0 ? c : (a.len < b.len ? -1 : a.len > b.len ? 1 : 0);
  };
  std::sort(groups.begin(), groups.end(), [&](const Group &a, const Group &b) {
    if (a.source != b.source) return a.source < b.source;
    if (a.first_line != b.first_line) return a.first_line < b.first_line;
    if (int c = cmp_str(a.entry_id, b.entry_id)) return c < 0;
    if (a.rank != b.rank) return a.rank < b.rank;
    return cmp_str(a.host, b.host) < 0;
  });
  std::sort(hints.begin(), hints.end(), [](const LaunchHint &a, const LaunchHint &b) { return a.source < b.source; });
  std::sort(progress.begin(), progress.end(), [&](const Progress &a, const Progress &b) {
    if (a.source != b.source) return a.source < b.source;
    if (a.rank != b.rank) return a.rank < b.rank;
    return cmp_str(a.host, b.host) < 0;
  });
  std::sort(pid_ranks.begin(), pid_ranks.end(), [&](const RankOfPid &a, const RankOfPid &b) {
    if (int c = cmp_str(a.host, b.host)) return c < 0;
    return a.pid < b.pid;
  });
  std::sort(exits.begin(), exits.end(), [](const WorkerExit &a, const WorkerExit &b) {
    return a.source != b.source ? a.source < b.source : a.line < b.line;
  });
  std::sort(candidates.begin(), candidates.end(),
            [](const Candidate &a, const Candidate &b) { return a.source != b.source ? a.source < b.source : a.line < b.line; });
  // The same per-source candidate budget as while scanning: first half and latest half.
  Vec<Candidate> kept(alloc_);
  for (size_t i = 0; i < candidates.size();) {
    size_t j = i;
    while (j < candidates.size() && candidates[j].source == candidates[i].source) j++;
    size_t count = j - i, half = kMaxCandidatesPerSource / 2;
    for (size_t k = i; k < j; k++)
      if (count <= kMaxCandidatesPerSource || k - i < half || j - k <= half) kept.push(candidates[k]);
    i = j;
  }
  if (!kept.failed()) candidates.swap(kept);
  table_.clear();
  rehash();
}

// The value of capture `name` among a group's fields ("name\0value\0"...); -1 when absent.
int64_t group_field_number(const Evidence &ev, const Group &g, const char *name) {
  const char *p = ev.str(g.fields), *end = p + g.fields.len;
  const size_t n = std::strlen(name);
  while (p < end) {
    const char *key = p;
    const size_t klen = std::strlen(key);
    const char *value = key + klen + 1;
    if (value >= end) break;
    const size_t vlen = std::strlen(value);
    int64_t v;
    if (klen == n && std::memcmp(key, name, n) == 0) return parse_decimal(value, vlen, &v) && v >= 0 ? v : -1;
    p = value + vlen + 1;
  }
  return -1;
}

void source_hints_from_name(const char *name, size_t len, int64_t *rank, int64_t *local_rank) {
  *rank = -1;
  *local_rank = -1;
  // Last path component.
  size_t base = 0;
  for (size_t i = 0; i < len; i++)
    if (name[i] == '/') base = i + 1;
  // "rank3", "rank-3", "rank_3", "rank.3" (any case) in the file name.
  for (size_t i = base; i + 4 < len; i++) {
    const char *p = name + i;
    if ((p[0] | 0x20) != 'r' || (p[1] | 0x20) != 'a' || (p[2] | 0x20) != 'n' || (p[3] | 0x20) != 'k') continue;
    size_t j = i + 4;
    if (j < len && (name[j] == '-' || name[j] == '_' || name[j] == '.')) j++;
    int64_t v = 0;
    size_t digits = 0;
    while (j < len && name[j] >= '0' && name[j] <= '9' && digits < 9) v = v * 10 + (name[j++] - '0'), digits++;
    if (digits) {
      *rank = v;
      return;
    }
  }
  // torchrun --log-dir: <dir>/<run_id>/attempt_<k>/<local_rank>/{stdout,stderr}.log
  if (base >= 2) {
    size_t end = base - 1, start = end;
    while (start > 0 && name[start - 1] != '/') start--;
    bool digits = end > start;
    int64_t v = 0;
    for (size_t i = start; i < end && digits; i++) {
      if (name[i] < '0' || name[i] > '9' || i - start > 8)
        digits = false;
      else
        v = v * 10 + (name[i] - '0');
    }
    if (digits && start >= 2) {
      // The parent directory must be attempt_<k>.
      size_t pend = start - 1, pstart = pend;
      while (pstart > 0 && name[pstart - 1] != '/') pstart--;
      if (pend - pstart > 8 && std::memcmp(name + pstart, "attempt_", 8) == 0) *local_rank = v;
    }
  }
}

}  // namespace faultline
