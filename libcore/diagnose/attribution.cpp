#include "diagnose/attribution.h"

#include <algorithm>
#include <cstring>

#include "common/decimal.h"
#include "common/vocabulary.h"
#include "diagnose/timeline.h"

namespace faultline {

namespace {

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
    if (c < 0 || (c == 0 && x.pid < pid))
      lo = mid + 1;
    else
      hi = mid;
  }
  return -1;
}

constexpr int64_t kNoBase = INT64_MIN;

// Length of a source name's directory part (through its last '/'; 0: none).
size_t dir_len(const Evidence &ev, uint32_t source) {
  const Str &n = ev.sources[source].name;
  const char *p = ev.str(n);
  for (size_t i = n.len; i > 0; i--)
    if (p[i - 1] == '/') return i;
  return 0;
}

// A host's short name: "node17" and "node17.cluster.local" are one host;
// an IPv4 address is kept whole.
size_t short_host(const char *h, size_t n) {
  bool ip = n > 0;
  for (size_t i = 0; i < n && ip; i++) ip = (h[i] >= '0' && h[i] <= '9') || h[i] == '.';
  if (ip) return n;
  const void *dot = std::memchr(h, '.', n);
  return dot ? static_cast<size_t>(static_cast<const char *>(dot) - h) : n;
}

}  // namespace

// How many hosts the job's lines name: 0, 1 or 2 (two or more).
int hosts_named(const Evidence &ev) {
  const char *first = nullptr;
  size_t first_len = 0;
  int seen = 0;
  auto note = [&](Str s) {
    if (seen == 2 || s.len == 0) return;
    const char *h = ev.str(s);
    const size_t n = short_host(h, s.len);
    if (seen == 0) {
      first = h, first_len = n, seen = 1;
    } else if (n != first_len || std::memcmp(h, first, n) != 0) {
      seen = 2;
    }
  };
  for (const Group &g : ev.groups) note(g.host);
  for (const WorkerExit &x : ev.exits) note(x.host);
  for (const Candidate &x : ev.candidates) note(x.host);
  for (const Progress &x : ev.progress) note(x.host);
  for (const RankOfPid &x : ev.pid_ranks) note(x.host);
  return seen;
}

AgentMap::AgentMap(const Evidence &e, const Allocator &a) : ev(e), has_table(a), base(a) {
  for (size_t i = 0; i < ev.sources.size(); i++) has_table.push(0), base.push(kNoBase);
  if (failed()) return;
  for (const WorkerExit &x : ev.exits)
    if (x.rank >= 0 && x.source < has_table.size()) has_table[x.source] = 1;
  for (uint32_t s = 0; s < ev.sources.size(); s++)
    if (has_table[s]) tables++;
}

uint32_t AgentMap::agent_of(uint32_t source) const {
  if (source >= has_table.size()) return kNoEntry;
  if (has_table[source]) return source;
  // A worker's own log (torchrun --log_dir: <dir>/<run>/attempt_N/<local_rank>/):
  // the agent is the one whose log sits in the nearest directory above it.
  const size_t d = dir_len(ev, source);
  const char *name = ev.str(ev.sources[source].name);
  uint32_t best = kNoEntry;
  size_t best_len = 0;
  bool tie = false;
  for (uint32_t t = 0; t < has_table.size() && tables; t++) {
    if (!has_table[t]) continue;
    size_t dt = dir_len(ev, t);
    if (dt > d || std::memcmp(ev.str(ev.sources[t].name), name, dt) != 0) continue;
    if (best == kNoEntry || dt > best_len)
      best = t, best_len = dt, tie = false;
    else if (dt == best_len)
      tie = true;
  }
  return tie ? kNoEntry : best;
}

int64_t AgentMap::global_rank(uint32_t source, int64_t local_rank) {
  if (local_rank < 0 || source >= base.size() || tables == 0) return -1;
  if (base[source] == kNoBase) {
    // torchrun numbers an agent's workers base + local rank: the base, from the
    // records of its failure table that state both; none when they disagree
    // (several agents' tables in one log).
    int64_t b = -1;
    const uint32_t agent = agent_of(source);
    for (const WorkerExit &x : ev.exits) {
      if (agent == kNoEntry || x.source != agent || x.rank < 0 || x.local_rank < 0) continue;
      const int64_t o = x.rank - x.local_rank;
      if (o < 0 || (b >= 0 && b != o)) {
        b = -1;
        break;
      }
      b = o;
    }
    base[source] = b;
  }
  return base[source] >= 0 ? base[source] + local_rank : -1;
}

void rank_groups(const Evidence &ev, AgentMap *agents, Vec<int64_t> *group_rank, Vec<RankFrom> *group_rank_from) {
  // One host (or none named) in the whole job: the local rank is the rank.
  // NCCL's "[N]" is the CUDA device, not a rank: with one GPU per process
  // every process prints [0], and one host's lines say nothing of the others.
  // It stands for the local rank (weakly) only when the job is seen on one
  // host, no two processes print the same device (each sees all GPUs and
  // takes its own), and no stated size says there is more than that host.
  bool single_host = true;
  Str first{};
  for (const Group &g : ev.groups) {
    if (g.host.len == 0) continue;
    if (first.len == 0)
      first = g.host;
    else if (!ev.str_eq(first, ev.str(g.host), g.host.len))
      single_host = false;
  }
  // The job has one rank (NCCL's communicators or a stated world size): everything is rank 0.
  int64_t world = ev.world_size();
  for (const RankOfPid &x : ev.pid_ranks) world = x.nranks > world ? x.nranks : world;
  // A rank a process says it is bounds the job's size from below ("[Proxy
  // Service 93]" from a host whose lines show only GPU 0).
  int64_t ranks_seen = world;
  for (const RankOfPid &x : ev.pid_ranks) ranks_seen = x.rank + 1 > ranks_seen ? x.rank + 1 : ranks_seen;
  int64_t max_device = -1;
  for (const Group &g : ev.groups)
    if (g.pid >= 0) max_device = g.device > max_device ? g.device : max_device;
  const bool devices_are_ranks = single_host && !ev.device_shared() && (ranks_seen < 0 || ranks_seen <= max_device + 1);
  for (const Group &g : ev.groups) {
    int64_t r = g.rank;
    RankFrom from = r >= 0 ? g.rank_from : RankFrom::kNone;
    if (r < 0 && g.pid >= 0 && (r = rank_of_pid(ev, g.host, g.pid)) >= 0) from = RankFrom::kPidMap;
    if (r < 0 && (r = agents->global_rank(g.source, g.local_rank)) >= 0) from = RankFrom::kAgentTable;
    if (r < 0 && single_host && g.local_rank >= 0) r = g.local_rank, from = RankFrom::kLocalRank;
    if (r < 0 && devices_are_ranks && g.device >= 0) r = g.device, from = RankFrom::kDevice;
    if (r < 0 && world == 1) r = 0, from = RankFrom::kWorldOfOne;
    group_rank->push(r);
    group_rank_from->push(from);
  }
}

namespace {

// A rank one mismatch report shows to differ from the majority, or -1. The
// printer names the LOWEST rank whose collective differs from its own, so
// every other rank below the named one runs the printer's collective: when
// there is such a rank (named >= 2, or named 1 by a printer other than 0),
// the printer is not alone and the named rank is the one out. "Rank 2 names
// 0" or "rank 0 names 1" could be either side.
int64_t named_rank_shown_odd(int64_t printer, int64_t named) { return named >= 2 || (named == 1 && printer != 0) ? named : -1; }

// Mismatch reports (ProcessGroupWrapper: each rank names the first rank whose
// collective differs from its own) blame neither side, but together they do:
// the rank that differs is named by every other printer, while it names one
// of them. The rank named by the most distinct printers, at least two and
// strictly more than any other; else the rank that single reports show to be
// the odd one (named_rank_shown_odd), when they all show the same; -1
// otherwise (two ranks only name each other).
int64_t odd_rank_out(const Evidence &ev, const Vec<int64_t> &group_rank, const char **how) {
  constexpr size_t kVoters = 64;
  int64_t printer[kVoters], named[kVoters];
  size_t n = 0;
  for (size_t i = 0; i < ev.groups.size() && i < group_rank.size(); i++) {
    const int64_t p = group_rank[i];
    if (p < 0 || ev.groups[i].fields.len == 0) continue;
    const int64_t r = group_field_number(ev, ev.groups[i], capture::kDifferingRank);
    if (r < 0 || r == p) continue;
    bool dup = false;
    for (size_t k = 0; k < n && !dup; k++) dup = printer[k] == p;
    if (dup) continue;
    if (n == kVoters) break;
    printer[n] = p, named[n] = r, n++;
  }
  int64_t best = -1;
  size_t best_votes = 0;
  bool tie = false;
  for (size_t i = 0; i < n; i++) {
    size_t votes = 0;
    for (size_t k = 0; k < n; k++) votes += named[k] == named[i];
    if (votes > best_votes)
      best = named[i], best_votes = votes, tie = false;
    else if (votes == best_votes && named[i] != best)
      tie = true;
  }
  if (best_votes >= 2 && !tie) {
    *how = "the ranks' collective mismatch reports name it more often than any other rank";
    return best;
  }
  int64_t shown = -1;
  for (size_t i = 0; i < n; i++) {
    const int64_t odd = named_rank_shown_odd(printer[i], named[i]);
    if (odd < 0) continue;
    if (shown >= 0 && odd != shown) return -1;
    shown = odd;
  }
  if (shown >= 0)
    *how =
        "a collective mismatch report names it as the lowest rank whose collective differs, and a lower rank agrees "
        "with the printer";
  return shown;
}

}  // namespace

// NCCL progress: the collective the others timed out on (the most common
// timeout SeqNum) and a rank whose last enqueued work is below it.
void find_lagging_rank(const Evidence &ev, Diagnosis *d) {
  // A report in the log that names the rank (desync debug, flight recorder).
  int32_t named = -1;
  for (size_t i = 0; i < ev.groups.size(); i++)
    if (ev.groups[i].culprit_rank >= 0 && (named < 0 || group_order(ev, ev.groups[i], ev.groups[named]) < 0))
      named = static_cast<int32_t>(i);
  if (named >= 0) {
    d->lagging_rank = ev.groups[named].culprit_rank;
    d->lagging_named = true;
    d->lagging_how =
        "a report in the log names it (monitored barrier, desync debug, flight recorder analysis, Horovod's stall inspector)";
  } else if ((d->lagging_rank = odd_rank_out(ev, d->group_rank, &d->lagging_how)) >= 0) {
    named = 0;
    d->lagging_odd = true;
  }
  const auto &prog = ev.progress;
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
  d->lagging_seq = seq;
  if (named >= 0) return;
  d->lagging_rank = lag;
  if (lag >= 0) {
    d->lagging_how = "its last enqueued NCCL work is below the SeqNum the others timed out on";
    return;
  }
  // Without progress figures: ranks 0..max (every rank the logs mention)
  // where all but one timed out on that SeqNum; the one that did not is
  // where the collective was never entered.
  int64_t max_rank = -1;
  for (int64_t r : d->group_rank) max_rank = r > max_rank ? r : max_rank;
  for (const Progress &p : prog) max_rank = p.rank > max_rank ? p.rank : max_rank;
  if (max_rank < 1 || max_rank > static_cast<int64_t>(kMaxSweptRanks)) return;
  int64_t missing = -1, timed_out = 0;
  for (int64_t r = 0; r <= max_rank; r++) {
    bool t = false;
    for (const Progress &p : prog) t = t || (p.rank == r && p.timeout_seq == seq);
    if (t)
      timed_out++;
    else if (missing < 0)
      missing = r;
    else
      return;  // more than one rank did not time out
  }
  if (missing >= 0 && timed_out >= 2) {
    d->lagging_rank = missing;
    d->lagging_how = "every other rank timed out on that SeqNum and this one did not";
  }
}

namespace {

// A signal the worker did not get from its own launcher: torchrun, srun and
// mpirun stop the surviving workers with SIGTERM (or SIGINT/SIGHUP).
bool crash_signal(int64_t s) { return s > 0 && s != 15 && s != 2 && s != 1; }

}  // namespace

bool several_failed(const Evidence &ev, uint32_t source) {
  int64_t first = -1;
  for (const WorkerExit &x : ev.exits) {
    if (x.source != source || x.rank < 0 || !(x.has_exitcode || x.signal)) continue;
    if (first >= 0 && x.rank != first) return true;
    first = x.rank;
  }
  return false;
}

namespace {

// On one node a worker's local rank is its rank: old torchrun agents
// ("failed (exitcode: -6) local_rank: 0") name only the local rank.
// A worker whose global rank differs from its local rank belongs to an agent
// whose ranks do not start at 0: the job has more than one agent, even when
// they share a host (two torchrun agents on one machine).
bool several_agents(const Evidence &ev) {
  for (const WorkerExit &x : ev.exits)
    if (x.rank >= 0 && x.local_rank >= 0 && x.rank != x.local_rank) return true;
  return false;
}

bool one_node(const Evidence &ev) { return ev.nodes() <= 1 && hosts_named(ev) < 2 && !several_agents(ev); }

// A record that names only the local rank ("failed (exitcode: 1) local_rank:
// 1 (pid: 14313)") is the worker that the same launcher output lists with its
// global rank and the same pid; else, on one node, its local rank is its rank.
int64_t exit_rank(const Evidence &ev, const WorkerExit &x, bool on_one_node) {
  if (x.rank >= 0) return x.rank;
  if (x.pid >= 0)
    for (const WorkerExit &y : ev.exits)
      if (y.rank >= 0 && y.pid == x.pid && y.source == x.source) return y.rank;
  return on_one_node ? x.local_rank : -1;
}

// The one rank among the launcher's records that `counts` selects, with its
// host; -1 when none does or two different ranks do.
template <typename Counts>
int64_t only_exit_rank(const Evidence &ev, bool single, Counts counts, Str *host) {
  int64_t rank = -1;
  Str at{};
  for (const WorkerExit &x : ev.exits) {
    const int64_t r = exit_rank(ev, x, single);
    if (r < 0 || !counts(x)) continue;
    if (rank >= 0 && rank != r) return -1;
    rank = r;
    if (x.host.len) at = x.host;
  }
  if (rank >= 0) *host = at;
  return rank;
}

}  // namespace

int64_t signal_exit_rank(const Evidence &ev, Str *host) {
  return only_exit_rank(
      ev, one_node(ev), [](const WorkerExit &x) { return crash_signal(x.signal); }, host);
}

namespace {

// The root error printed again in the same log on a line that names one
// rank: PyTorch's NCCL watchdog restates the CUDA error that ended its
// process as "[Rank 1] NCCL watchdog thread terminated with exception: ...".
// Lines of two different ranks say nothing of which was first.
int64_t restated_rank(const Evidence &ev, const Diagnosis &d, const Group &root) {
  int64_t rank = -1;
  for (size_t i = 0; i < ev.groups.size() && i < d.group_rank.size(); i++) {
    const Group &g = ev.groups[i];
    if (&g == &root || g.entry != root.entry || g.source != root.source || d.group_rank[i] < 0) continue;
    if (rank >= 0 && rank != d.group_rank[i]) return -1;
    rank = d.group_rank[i];
  }
  return rank;
}

// The rank whose failure record (the error file torchrun prints in its
// table) holds the same exception as the root.
int64_t error_file_rank(const Evidence &ev, const Candidate &root, Str *host) {
  if (root.exception.len == 0) return -1;
  for (const Candidate &c : ev.candidates)
    if (c.rank_from == RankFrom::kLauncherTable && c.rank >= 0 &&
        ev.str_eq(c.exception, ev.str(root.exception), root.exception.len)) {
      *host = c.host;
      return c.rank;
    }
  return -1;
}

// The rank whose failure record (the error file torchrun quotes in its table)
// holds an error of the root's entry, when the record of one rank only does.
int64_t error_file_group_rank(const Evidence &ev, const Diagnosis &d, const Group &root) {
  int64_t rank = -1;
  for (size_t i = 0; i < ev.groups.size() && i < d.group_rank.size(); i++) {
    const Group &g = ev.groups[i];
    if (g.entry != root.entry || g.rank_from != RankFrom::kLauncherTable || d.group_rank[i] < 0) continue;
    if (rank >= 0 && rank != d.group_rank[i]) return -1;
    rank = d.group_rank[i];
  }
  return rank;
}

// The hung rank: of the job's ranks, every one but one reported its failure
// (an exit in the launcher's table, a timeout of its own); the silent one
// stopped and was killed later. The job's size: as stated, else the ranks seen.
int64_t hung_rank(const Evidence &ev, const Diagnosis &d, const Library &pack, int64_t min_reported = 1) {
  int64_t world = ev.world_size(), max_seen = -1;
  for (const RankOfPid &x : ev.pid_ranks) world = x.nranks > world ? x.nranks : world;
  for (int64_t r : d.group_rank) max_seen = r > max_seen ? r : max_seen;
  for (const WorkerExit &x : ev.exits) max_seen = x.rank > max_seen ? x.rank : max_seen;
  if (world < 0) world = max_seen + 1;
  if (world < 2 || world > static_cast<int64_t>(kMaxSweptRanks)) return -1;
  // One pass over the evidence marks the ranks that reported.
  Vec<uint8_t> reported(d.alloc);
  for (int64_t r = 0; r < world; r++) reported.push(0);
  if (reported.failed()) return -1;
  auto mark = [&](int64_t r) {
    if (r >= 0 && r < world) reported[static_cast<size_t>(r)] = 1;
  };
  // A hang shows in ranks that waited: exits alone (a rank that raised and
  // exited 1) say nothing of the ranks that did not report.
  bool waited = false;
  uint64_t unranked_reports = 0;
  for (const Progress &p : ev.progress)
    if (p.timeout_seq >= 0) mark(p.rank), waited = true;
  for (size_t i = 0; i < ev.groups.size(); i++) {
    const Group &g = ev.groups[i];
    const fb::Entry *e = g.entry < pack.entry_count() ? pack.entry(g.entry) : nullptr;
    if (!e || (e->role() != fb::Role::Collateral && !entry_waits_on_peers(e))) continue;
    waited = true;
    if (d.group_rank[i] >= 0)
      mark(d.group_rank[i]);
    else
      unranked_reports += g.count;
  }
  if (!waited) return -1;
  // A rank the launcher lists as exited is marked too, but its exit says
  // nothing of the reports printed without a rank: torchrun lists the ranks
  // that failed in one interval and SIGTERMs the rest, so an unlisted rank is
  // silent only when the listed ones account for every such report.
  uint64_t exited_only = 0;
  for (const WorkerExit &x : ev.exits)
    if ((x.has_exitcode || x.signal) && x.rank >= 0 && x.rank < world && !reported[static_cast<size_t>(x.rank)])
      mark(x.rank), exited_only++;
  if (exited_only && unranked_reports > exited_only) return -1;
  int64_t missing = -1, seen = 0;
  for (int64_t r = 0; r < world; r++) {
    if (reported[static_cast<size_t>(r)])
      seen++;
    else if (missing < 0)
      missing = r;
    else
      return -1;  // more than one silent rank
  }
  return seen >= min_reported ? missing : -1;
}

void decide(Diagnosis *d, int64_t rank, Str host, const char *source, const char *detail, const char *certainty) {
  d->root_rank = rank;
  if (host.len) d->root_host = host;
  d->rank_source = source;
  d->rank_detail = detail;
  d->rank_certainty = certainty;
}

// The rank the others waited for: named by a report in the log (rank 0 of a
// monitored barrier, PyTorch's desync analysis), or found by NCCL progress.
void decide_lagging(Diagnosis *d) {
  decide(d, d->lagging_rank, Str{}, d->lagging_named || d->lagging_odd ? "named-by-report" : "nccl-progress", d->lagging_how,
         "medium");
}

// How a group's own rank was read, for the report.
void decide_printed(Diagnosis *d, int64_t rank, RankFrom from) {
  switch (from) {
    case RankFrom::kPrefix:
      return decide(d, rank, Str{}, "printed-root-error", "the line of the root error carries the rank's prefix", "high");
    case RankFrom::kMessage:
      return decide(d, rank, Str{}, "printed-root-error", "the root error's message states the rank", "high");
    case RankFrom::kTraceback:
      return decide(d, rank, Str{}, "printed-root-error",
                    "the root error ends a traceback whose first line carries the rank (a logger's multi-line record)", "high");
    case RankFrom::kFileName:
      return decide(d, rank, Str{}, "printed-root-error", "the root error is in the log file named for the rank", "high");
    case RankFrom::kAgentWorker:
      return decide(d, rank, Str{}, "printed-root-error",
                    "the root error is in the console of a torchrun agent whose only worker is this rank (its rendezvous "
                    "result: global_ranks=[R])",
                    "high");
    case RankFrom::kLauncherTable:
      return decide(d, rank, Str{}, "launcher-exit-record", "the launcher's failure record of this rank holds the root error",
                    "high");
    case RankFrom::kPidMap:
      return decide(d, rank, Str{}, "printed-root-error",
                    "NCCL's lines of the printing process (comm, tree, sending channel, proxy) name its rank", "high");
    case RankFrom::kLocalRank:
      return decide(d, rank, Str{}, "printed-root-error", "one host: the local rank of the printing process is its rank",
                    "medium");
    case RankFrom::kDevice:
      return decide(d, rank, Str{}, "printed-root-error",
                    "one host, each process on its own GPU: the GPU index NCCL prints is taken for its local rank", "low");
    case RankFrom::kWorldOfOne:
      return decide(d, rank, Str{}, "single-rank-job", "the job has one rank", "high");
    case RankFrom::kAgentTable:
      return decide(d, rank, Str{}, "printed-root-error",
                    "the local rank of the printing process, made global by its agent's failure table", "high");
    case RankFrom::kNone:
      break;
  }
}

// The root was printed without a rank, or is collateral only: the job-level
// evidence, strongest first. Returns true when some evidence named a rank.
bool decide_from_job(const Evidence &ev, const Library &pack, Diagnosis *d) {
  Str host{};
  int64_t r;
  if ((r = signal_exit_rank(ev, &host)) >= 0) {
    decide(d, r, host, "launcher-signal-exit", "the launcher reports this rank killed by a signal", "medium");
    return true;
  }
  if (d->lagging_rank >= 0) {
    decide_lagging(d);
    return true;
  }
  if ((r = hung_rank(ev, *d, pack)) >= 0) {
    decide(d, r, Str{}, "hung-rank", "every other rank reported its failure or timeout; this one went silent", "medium");
    return true;
  }
  for (const LaunchHint &h : ev.hints)
    if (h.rank >= 0 && !several_failed(ev, h.source)) {
      decide(d, h.rank, h.host, "launcher-first-observed",
             "torchrun's 'first observed failure' (a hint: it names the lowest rank among those that failed together)", "low");
      return true;
    }
  return false;
}

// The root error is a wait for other ranks, printed without a rank, and no
// rank went silent while two or more others reported (tried first): the
// crash-signal rank or NCCL progress. Not torchrun's first observed failure:
// the first rank to fail with a timeout is a waiter, not where it began.
void decide_waited(const Evidence &ev, Diagnosis *d) {
  Str host{};
  int64_t r;
  if ((r = signal_exit_rank(ev, &host)) >= 0)
    decide(d, r, host, "launcher-signal-exit", "the launcher reports this rank killed by a signal", "medium");
  else if (d->lagging_rank >= 0)
    decide_lagging(d);
}

// The one rank that printed a stack (a traceback, cut or whole, or a C++
// stack) in the source; -1 when none did or several did.
int64_t only_stack_rank(const Evidence &ev, uint32_t source) {
  int64_t rank = -1;
  for (const Candidate &c : ev.candidates) {
    if (c.source != source || c.rank < 0) continue;
    if (rank >= 0 && c.rank != rank) return -1;
    rank = c.rank;
  }
  return rank;
}

// The one rank a launcher names as failed without an exit status (Ray
// Train's "Worker 0 has failed.", mpirun's "Process name: [[x,y],N]"); two
// different ranks named say nothing of which was first.
int64_t only_named_failed_rank(const Evidence &ev, bool single, Str *host) {
  return only_exit_rank(
      ev, single, [](const WorkerExit &x) { return !x.has_exitcode && x.signal == 0; }, host);
}

// The root error was raised by the process that printed it (it did not wait
// for another rank), but its line names no rank: the rank the launcher saw
// die by a crash signal, the rank NCCL progress names, else the one rank the
// launcher of the root's agent reports exiting with an error. A process that
// raised exits with an error status; the launcher stops the others with
// SIGTERM. When it reports several (torchrun lists every worker that failed
// within one monitoring interval, lowest first), the line cannot say which:
// no rank, and the missing evidence says so.
void decide_raised(const Evidence &ev, AgentMap *agents, uint32_t source, Diagnosis *d) {
  const bool single = one_node(ev);
  Str host{};
  int64_t r;
  if ((r = signal_exit_rank(ev, &host)) >= 0) {
    decide(d, r, host, "launcher-signal-exit", "the launcher reports this rank killed by a signal", "medium");
    return;
  }
  if (d->lagging_rank >= 0) {
    decide_lagging(d);
    return;
  }
  const uint32_t agent = agents->agent_of(source);
  int64_t ranks[kMaxRanksListed];
  uint32_t n = 0, more = 0;
  for (const WorkerExit &x : ev.exits) {
    const int64_t rank = exit_rank(ev, x, single);
    if (rank < 0 || !x.has_exitcode || x.exitcode <= 0 || (agent != kNoEntry && x.source != agent)) continue;
    bool seen = false;
    for (uint32_t i = 0; i < n && !seen; i++) seen = ranks[i] == rank;
    if (seen) continue;
    if (n < kMaxRanksListed)
      ranks[n++] = rank, host = n == 1 ? x.host : host;
    else
      more++;
  }
  if (n == 1) {
    decide(d, ranks[0], host, "launcher-error-exit",
           "the root error names no rank; the launcher reports this rank alone exiting with an error (the others it "
           "stopped)",
           "medium");
    return;
  }
  if (n == 0) {
    if ((r = only_named_failed_rank(ev, single, &host)) >= 0)
      decide(d, r, host, "launcher-failed-worker",
             "the root error names no rank; the launcher names this rank alone as the worker that failed", "medium");
    else if ((r = only_stack_rank(ev, source)) >= 0)
      decide(d, r, Str{}, "only-rank-with-traceback",
             "the root error names no rank and no launcher record names one; this rank alone printed a stack in the log "
             "(PyTorch 2.3+ prefixes an uncaught traceback with its rank; a device assertion or a C++ message "
             "has no prefix)",
             "low");
    return;
  }
  if (n < 2) return;
  std::sort(ranks, ranks + n);
  Text m(d->alloc);
  m.add("the root error was printed without a rank, and the launcher reports ranks ");
  for (uint32_t i = 0; i < n; i++) m.addf("%s%lld", i ? ", " : "", static_cast<long long>(ranks[i]));
  if (more) m.addf(" and %u more", more);
  m.add(
      " exiting with an error together: one of them printed it (a per-rank prefix, torchrun --tee or --log_dir, "
      "or @record error files would say which)");
  if (d->missing.size()) d->missing.addc('\n');
  d->missing.add(m.c_str());
}

}  // namespace

// Another rank printed the root's error in another log, and nothing orders
// the two (a timestamp on each): which came first is unknown, and the lower
// rank number is no evidence.
bool printed_by_another_rank_unordered(const Evidence &ev, const Diagnosis &d, const Group &root, int64_t printer) {
  for (size_t i = 0; i < ev.groups.size(); i++) {
    const Group &g = ev.groups[i];
    const int64_t r = d.group_rank[i];
    if (&g == &root || g.entry != root.entry || r < 0 || r == printer || g.source == root.source) continue;
    if (g.first_time.len == 0 || root.first_time.len == 0) return true;
  }
  return false;
}

void attribute_root(const Evidence &ev, const Library &pack, AgentMap *agents, Diagnosis *d) {
  if (d->verdict == Verdict::kInconclusive) {
    // The root names the suspect, not where the collateral was printed.
    decide_from_job(ev, pack, d);
  } else if (d->root_group >= 0 && d->root_candidate < 0) {  // with a candidate: its traceback's context names the kind
    const Group &g = ev.groups[d->root_group];
    const fb::Entry *e = g.entry < pack.entry_count() ? pack.entry(g.entry) : nullptr;
    const bool waited = e && entry_waits_on_peers(e);
    const int64_t printer = d->group_rank[d->root_group];
    d->root_host = g.host;
    int64_t r;
    // The root's printer waited for a peer: the rank that went silent is where
    // it began, when two or more others reported (one rank's report says
    // nothing of the rest of the job, whose size is then only the highest
    // rank seen).
    if (waited && (r = hung_rank(ev, *d, pack, 2)) >= 0 && r != printer)
      decide(d, r, Str{}, "hung-rank",
             "the root error is a wait for other ranks; every other rank reported its failure or timeout, this one "
             "went silent",
             "medium");
    // A waiter printed it, and a report in the log names whom it waited for.
    else if (waited && d->lagging_named && d->lagging_rank != printer)
      decide_lagging(d);
    // A collective mismatch report: its printer may be either side; the
    // reports together name the rank whose collective differs.
    else if (d->lagging_odd && d->lagging_rank != printer && group_field_number(ev, g, capture::kDifferingRank) >= 0)
      decide_lagging(d);
    else if (printer >= 0 && !printed_by_another_rank_unordered(ev, *d, g, printer))
      decide_printed(d, printer, d->group_rank_from[d->root_group]);
    else if (printer >= 0)
      ;  // the ranks that printed it are listed (root.ranks); none is known to be first
    else if (waited)
      decide_waited(ev, d);
    else if ((r = error_file_group_rank(ev, *d, g)) >= 0)
      decide(d, r, Str{}, "launcher-error-file", "the launcher's failure record of this rank holds the same error", "high");
    else if ((r = restated_rank(ev, *d, g)) >= 0)
      decide(d, r, Str{}, "printed-root-error", "the same error is restated in this log on a line that names this rank",
             "medium");
    else
      decide_raised(ev, agents, g.source, d);
  } else if (d->root_candidate >= 0) {
    const Candidate &c = ev.candidates[d->root_candidate];
    d->root_host = c.host;
    Str host{};
    int64_t r;
    if (c.rank >= 0)
      decide_printed(d, c.rank, c.rank_from);
    else if ((r = error_file_rank(ev, c, &host)) >= 0)
      decide(d, r, host, "launcher-error-file", "the launcher's failure record of this rank holds the same exception", "high");
    else
      decide_raised(ev, agents, c.source, d);
  } else if (d->root_hint >= 0) {
    decide_from_job(ev, pack, d);
  }
  // The launcher's records name the host of the rank they report.
  if (d->root_rank >= 0 && d->root_host.len == 0) {
    for (const WorkerExit &x : ev.exits)
      if (x.rank == d->root_rank && x.host.len) {
        d->root_host = x.host;
        break;
      }
  }
  if (d->root_rank >= 0 && d->root_host.len == 0)
    for (const LaunchHint &h : ev.hints)
      if (h.rank == d->root_rank && h.host.len) {
        d->root_host = h.host;
        break;
      }
}

}  // namespace faultline
