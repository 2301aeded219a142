// Attribution: whose failure it is. The rank of each piece of evidence (its
// line's prefix, the message, NCCL's pid-to-rank lines, or on one host the
// local rank or GPU index), the rank the others waited for (NCCL progress, a
// report naming the culprit), and the rank and host the root is charged to.
#pragma once

#include "diagnose/diagnosis.h"

namespace faultline {

// One rank per evidence group, in group order (-1 = unknown), and where it came from.
void rank_groups(const Evidence &ev, Vec<int64_t> *group_rank, Vec<RankFrom> *group_rank_from);

// Sets d->lagging_rank, lagging_seq and lagging_how from NCCL progress and
// culprit reports. Needs d->group_rank.
void find_lagging_rank(const Evidence &ev, Diagnosis *d);

// The one rank the launchers saw die by a crash signal (not the SIGTERM they
// stop the others with); -1 when none or several. *host: its host, if named.
int64_t signal_exit_rank(const Evidence &ev, Str *host);

// Sets d->root_rank and d->root_host once the root is chosen.
// The order of evidence (strongest first): the rank that printed the root
// error (its prefix, its message, its file, its launcher record), the rank
// the launcher saw killed by a signal, NCCL progress, the hung rank, and
// last torchrun's "first observed failure" (a hint: it names the lowest rank
// among those that failed in one monitoring interval). d->rank_source says which.
void attribute_root(const Evidence &ev, const PackView &pack, Diagnosis *d);

}  // namespace faultline
