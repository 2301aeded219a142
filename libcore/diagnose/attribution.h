// Attribution: whose failure it is. The rank of each piece of evidence (its
// line's prefix, the message, NCCL's pid-to-rank lines, or on one host the
// local rank or GPU index), the rank the others waited for (NCCL progress, a
// report naming the culprit), and the rank and host the root is charged to.
#pragma once

#include "diagnose/diagnosis.h"

namespace faultline {

// Which launcher agent each log belongs to, and the global rank of its local
// ranks. An agent is known by its failure table (torchrun's "rank : 3
// (local_rank: 1)" records): the log that holds it, and the worker logs in
// the directories under it (torchrun --log_dir).
struct AgentMap {
  AgentMap(const Evidence &ev, const Allocator &a);
  bool failed() const { return has_table.failed() || base.failed(); }
  // The source holding the failure table of `source`'s agent; kNoEntry when
  // none or when two are equally near.
  uint32_t agent_of(uint32_t source) const;
  // The global rank of a local rank printed in `source`, -1 when its agent's
  // table does not give the agent's base.
  int64_t global_rank(uint32_t source, int64_t local_rank);

  const Evidence &ev;
  Vec<uint8_t> has_table;  // per source
  Vec<int64_t> base;       // per source, computed when first asked
  uint32_t tables = 0;
};

// How many hosts the job's lines name (short names: node17 and
// node17.cluster.local are one): 0, 1 or 2 (two or more).
int hosts_named(const Evidence &ev);

// One rank per evidence group, in group order (-1 = unknown), and where it came from.
void rank_groups(const Evidence &ev, AgentMap *agents, Vec<int64_t> *group_rank, Vec<RankFrom> *group_rank_from);

// Sets d->lagging_rank, lagging_seq and lagging_how from NCCL progress and
// culprit reports. Needs d->group_rank.
void find_lagging_rank(const Evidence &ev, Diagnosis *d);

// The one rank the launchers saw die by a crash signal (not the SIGTERM they
// stop the others with); -1 when none or several. *host: its host, if named.
int64_t signal_exit_rank(const Evidence &ev, Str *host);

// Whether the launcher's table in `source` lists two or more ranks as failed.
// torchrun's "first observed failure" is then the lowest of the workers it
// found failed in one monitoring interval (they share a timestamp when no
// error file gives one), not the first to fail.
bool several_failed(const Evidence &ev, uint32_t source);

// Sets d->root_rank and d->root_host once the root is chosen.
// The order of evidence (strongest first): the rank that printed the root
// error (its prefix, its message, its file, its launcher record), the rank
// the launcher saw killed by a signal, NCCL progress, the hung rank, and
// last torchrun's "first observed failure" (a hint: it names the lowest rank
// among those that failed in one monitoring interval). d->rank_source says which.
void attribute_root(const Evidence &ev, const Library &pack, AgentMap *agents, Diagnosis *d);

}  // namespace faultline
