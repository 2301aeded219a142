// Diagnosis: from canonical evidence to the initiating failure, its rank
// and host, what is collateral and why, how sure we are, and what is
// missing. Pure function of the evidence and the pack, in steps: attribution
// (diagnose/attribution.h) says whose each piece of evidence is, this file
// chooses the root and sorts the rest, diagnose/fingerprint.h names it.
// Rendering is in report/.
#pragma once

#include <cstdint>

#include "diagnose/evidence.h"

namespace faultline {

enum class Verdict { kNoFailure, kFailure, kInconclusive };

// One entry other than the root that holds, with every rank it fired on.
struct Finding {
  uint32_t entry = kNoEntry;
  uint32_t first_group = 0;  // earliest group of the entry
  uint64_t count = 0;
  uint32_t rank_count = 0;  // distinct ranks (>= 0) below, at most kMaxRanksListed
  int64_t ranks[kMaxRanksListed];
  uint32_t more_ranks = 0;      // distinct ranks not listed
  const char *reason = "";      // static text, completed by the renderer
  bool caused_by_root = false;  // the root entry lists this one in `causes`
};

struct Diagnosis {
  explicit Diagnosis(const Allocator &a)
      : alloc(a),
        collateral(a),
        findings(a),
        reasons(a),
        missing(a),
        root_ranks(a),
        group_rank(a),
        group_rank_from(a),
        fingerprint_template(a) {}

  Allocator alloc;  // for the diagnosis and its rendering
  Verdict verdict = Verdict::kNoFailure;
  // The root: a group (known entry), else an exception candidate (unknown),
  // else a launcher hint (unknown, exit status only).
  int32_t root_group = -1, root_candidate = -1, root_hint = -1;
  int64_t root_rank = -1;
  Str root_host;
  const char *decided_by = "";  // which evidence decided (see report schema)
  double confidence = 0;
  Vec<Finding> collateral;  // other holding entries (cause/collateral/wrapper)
  Vec<Finding> findings;    // informational: symptoms that hold
  Text reasons;             // confidence reasons, '\n'-separated
  Text missing;             // missing evidence, '\n'-separated
  Vec<int64_t> root_ranks;  // every rank the root entry holds on
  // Per evidence group: its rank from the line, the message, NCCL's
  // pid-to-rank lines, or (single-host jobs) the local rank or GPU index.
  Vec<int64_t> group_rank;
  Vec<RankFrom> group_rank_from;
  // How the root's rank was decided (report schema: root.rank_evidence).
  const char *rank_source = "";     // "", "printed-root-error", "launcher-signal-exit", ...
  const char *rank_detail = "";     // one line a person reads
  const char *rank_certainty = "";  // "high", "medium", "low"
  int64_t lagging_rank = -1;        // the rank the others waited for
  bool lagging_named = false;       // a report in the log names it (not inferred from progress)
  bool lagging_odd = false;         // collective mismatch reports show it runs another collective
  int64_t lagging_seq = -1;
  uint64_t fingerprint = 0;
  Text fingerprint_template;     // what the fingerprint hashes
  const char *lagging_how = "";  // how the lagging rank was found
};

// Evidence must be canonicalized first.
bool diagnose(const Evidence &ev, const Library &pack, Diagnosis *out);

// Where the root stands in the logs, whichever kind of evidence it is: an
// entry's group, an unknown exception, or the launcher's exit report.
struct RootSite {
  uint32_t source = kNoEntry;  // kNoEntry: no root
  uint64_t line = 0;
  Str time, text;             // empty for the launcher's report (no line of the failure itself)
  uint32_t entry = kNoEntry;  // the root's entry in the pack, kNoEntry when no entry knows it
};
RootSite root_site(const Evidence &ev, const Diagnosis &d);

}  // namespace faultline
