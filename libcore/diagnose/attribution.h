// Attribution: whose failure it is. The rank of each piece of evidence (its
// line's prefix, the message, NCCL's pid-to-rank lines, or on one host the
// local rank or GPU index), the rank the others waited for (NCCL progress, a
// report naming the culprit), and the rank and host the root is charged to.
#pragma once

#include "diagnose/diagnosis.h"

namespace faultline {

// One rank per evidence group, in group order (-1 = unknown).
void rank_groups(const Evidence &ev, Vec<int64_t> *group_rank);

// Sets d->lagging_rank, lagging_seq and lagging_how from NCCL progress and
// culprit reports. Needs d->group_rank.
void find_lagging_rank(const Evidence &ev, Diagnosis *d);

// Sets d->root_rank and d->root_host once the root is chosen.
void attribute_root(const Evidence &ev, Diagnosis *d);

}  // namespace faultline
