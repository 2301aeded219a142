#include "diagnose/attribution.h"

#include <cstring>

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

}  // namespace

void rank_groups(const Evidence &ev, Vec<int64_t> *group_rank) {
  // One host (or none named) in the whole job: local rank and GPU index are the rank.
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
  for (const Group &g : ev.groups) {
    int64_t r = g.rank;
    if (r < 0 && g.pid >= 0) r = rank_of_pid(ev, g.host, g.pid);
    if (r < 0 && single_host) r = g.local_rank >= 0 ? g.local_rank : g.device;
    if (r < 0 && world == 1) r = 0;
    group_rank->push(r);
  }
}

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
    d->lagging_how = "a report in the log names it (desync debug or flight recorder analysis)";
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

void attribute_root(const Evidence &ev, Diagnosis *d) {
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
}

}  // namespace faultline
