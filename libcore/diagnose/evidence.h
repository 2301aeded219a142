// Evidence: what the scanner's events say about a job, kept compact and
// bounded so that any log size fits. Per source (one log file or stream) and
// per (entry, rank, host): how often it fired, the first and last line, the
// first line's text, time and captured fields. Beside the groups: the
// launcher's "Root Cause (first observed failure)" block, NCCL progress
// figures per rank, and fatal-looking Python exception lines for failures no
// entry knows.
//
// Evidence is a set: merging two (partials of a job) is associative and
// commutative, and the report is computed from a canonical order, so any
// partition of a job's logs merged in any order diagnoses like the whole.
#pragma once

#include <cstdint>

#include "common/growbuf.h"
#include "common/limits.h"
#include "match/library.h"

namespace faultline {

// What the evidence keeps is bounded by common/limits.h (kMaxGroups, ...).
constexpr uint32_t kNoEntry = 0xffffffffu;

// A string in the evidence's pool.
struct Str {
  uint32_t off = 0, len = 0;
};

struct SourceRec {
  Str name;
  uint64_t bytes = 0, lines = 0;
  int64_t rank_hint = -1;        // from the file name (rank3.log, ...)
  int64_t local_rank_hint = -1;  // torchrun --log-dir: .../attempt_0/<local_rank>/stderr.log
  int64_t worker_rank = -1;      // the agent's only worker (global_ranks=[R]); -2: two values, none
  uint64_t completed_line = 0;   // last line saying the run finished normally, 0 = none
};

// Where a piece of evidence got its rank, strongest first.
enum class RankFrom : uint8_t {
  kNone = 0,
  kPrefix,         // the line's prefix ([rank3]:, srun's "3: ", mpirun's [1,3])
  kMessage,        // the message states it ("[Rank 3]", "on rank 3")
  kFileName,       // the log file is named for it (rank3.log)
  kLauncherTable,  // the line is part of the launcher's record of that rank's exit
  kPidMap,         // its pid is that rank's (NCCL "comm .. rank R nranks N")
  kLocalRank,      // one host: the local rank ([default3]:, --log-dir) is the rank
  kWorldOfOne,     // the job has one rank
  kDevice,         // one host, one process per GPU: NCCL's "[N]" device index is the local rank
  kTraceback,      // a line of a traceback whose first line has the rank (a logger's multi-line record)
  kAgentWorker,    // the console of a torchrun agent whose only worker is that rank (global_ranks=[R])
  // Set at diagnosis only (never in a partial): the local rank, made global by
  // the failure table of its own agent (torchrun: rank = base + local rank).
  kAgentTable,
};

struct Group {
  uint32_t source = 0;
  uint32_t entry = kNoEntry;  // index in the pack; kNoEntry when the id is not in it
  Str entry_id;
  int64_t rank = -1;
  Str host;
  uint64_t count = 0;
  uint64_t first_line = 0, last_line = 0;
  Str first_time, first_text, first_pattern;
  Str fields;                 // "name\0value\0" pairs of the first event
  uint32_t pattern_mask = 0;  // bit i: the entry's pattern i fired (i < kMaxPatternsPerEntry)
  uint32_t truncated = 0;     // the first line was cut at kMaxTextBytes
  // Weaker clues to the rank, resolved at diagnosis (see effective ranks).
  int64_t pid = -1, local_rank = -1, device = -1;
  int64_t culprit_rank = -1;             // a rank the message itself blames (capture `culprit_rank`)
  RankFrom rank_from = RankFrom::kNone;  // of `rank`
};

// Which global rank a process is: NCCL prints "comm 0x.. rank R nranks N"
// for every communicator a process joins; the largest one is the world.
struct RankOfPid {
  Str host;
  int64_t pid = -1, rank = -1, nranks = -1;
};

// The launcher's summary of the first failed worker (torchrun's
// "Root Cause (first observed failure)" block): a hint, not proof.
struct LaunchHint {
  uint32_t source = 0;
  uint64_t line = 0;  // of the block header; 0 = none
  int64_t rank = -1, local_rank = -1, exitcode = 0, signal = 0;
  bool has_exitcode = false;
  Str host;
};

// A worker's exit as the launcher reports it: a record of torchrun's failure
// table ("rank : 3 (local_rank: 1)", "exitcode : -9 (pid: ..)", "Signal 9
// (SIGKILL) received by PID"), the agent's "failed (exitcode: -9)
// local_rank: 1" line, or mpirun's "process rank 3 ... exited on signal 9".
struct WorkerExit {
  uint32_t source = 0;
  uint64_t line = 0;
  int64_t rank = -1, local_rank = -1, exitcode = 0, signal = 0, pid = -1;
  bool has_exitcode = false;
  bool first_observed = false;  // in torchrun's "Root Cause (first observed failure)" block
  Str host;
};

// NCCL progress of one rank: the collective it timed out on and how far it got.
struct Progress {
  uint32_t source = 0;
  int64_t rank = -1;
  Str host;
  int64_t timeout_seq = -1;     // smallest SeqNum this rank timed out on
  Str op_type;                  // the operation of that collective, when stated
  int64_t last_enqueued = -1;   // largest "last enqueued NCCL work"
  int64_t last_completed = -1;  // largest "last completed NCCL work"
  uint64_t line = 0;
};

// What made a fatal-looking end of a log that no entry explains.
enum class CandidateKind : uint8_t {
  kException = 0,  // the exception line ending a Python traceback
  kCutTraceback,   // a traceback with no exception line after it (cut short, or a class no pattern reads)
  kNativeStack,    // a C++ stack ("frame #0: ...") no entry explains
};

// A fatal-looking end of a log: an uncaught exception, a traceback cut short,
// a C++ stack.
struct Candidate {
  uint32_t source = 0;
  uint64_t line = 0;
  int64_t rank = -1;
  Str host, time, text, exception;  // exception: "Type: message", or the innermost frame of a stack
  Str context;                      // id of the traceback-context entry of its innermost such frame, if any
  bool explained = false;           // the same line matched a known entry
  RankFrom rank_from = RankFrom::kNone;
  CandidateKind kind = CandidateKind::kException;
};

class Evidence {
 public:
  explicit Evidence(const Allocator &a);

  // The pack resolves entry ids; may be null for evidence read from a partial
  // before a pack is known (entries then resolve at report time).
  void set_pack(const Library *pack) { pack_ = pack; }
  const Library *pack() const { return pack_; }

  // Sources. begin_source returns the index of the source with that name
  // (an existing one is continued).
  uint32_t begin_source(const char *name, size_t len);
  void end_source(uint32_t source);
  uint32_t current_source() const { return live_.source; }  // kNoEntry when none
  void add_bytes(uint32_t source, uint64_t bytes, uint64_t lines);
  void add_event(uint32_t source, const fl_event *ev);

  // Merges `other` into this evidence (strings are copied).
  void merge(const Evidence &other);

  // Serialized partial: see partial.cpp for the format.
  bool serialize(Text *out) const;
  bool deserialize(const uint8_t *bytes, size_t len, ErrorText *err);

  bool failed() const;
  uint64_t dropped_events() const { return dropped_events_; }
  int64_t world_size() const { return world_size_; }  // largest stated, -1 unknown
  int64_t nodes() const { return nodes_; }            // largest stated node count, -1 unknown
  // NCCL's "[N]" device index printed by two different processes: each
  // process sees its own GPUs, so the index says nothing of the rank.
  bool device_shared() const { return device_shared_; }

  // Canonical order: sources by name, groups by (source, first line, entry
  // id, rank, host). Called before a report.
  void canonicalize();
  // Ranks that timed out on one SeqNum in different operations issued their
  // collectives in different orders: adds a group of the pack's entry tagged
  // `collective-order` on the line of the rank whose operation is the odd
  // one out (or the earliest such line). Does nothing when a line of the
  // logs made a group of that entry; replaces the group an earlier call
  // inferred. Reads the evidence in canonical order: canonicalize before and
  // after (the added group's place).
  void infer_collective_order(const Library &pack);

  const char *str(Str s) const { return pool_.data() ? pool_.data() + s.off : ""; }
  bool str_eq(Str s, const char *p, size_t n) const;
  Str intern(const char *p, size_t n);

  Vec<SourceRec> sources;
  Vec<Group> groups;
  Vec<LaunchHint> hints;      // at most one per source
  Vec<Progress> progress;     // one per (source, rank, host)
  Vec<Candidate> candidates;  // at most kMaxCandidatesPerSource per source
  Vec<RankOfPid> pid_ranks;   // at most kMaxPidRanks
  Vec<WorkerExit> exits;      // at most kMaxWorkerExits

 private:
  // Live scanning state of the current source (not part of a partial).
  // A stack being printed (a Python traceback or a C++ "frame #N" block),
  // kept until the source ends: a stack that never reached its exception
  // line, or that no entry explains, is a fatal-looking end of its own.
  struct OpenStack {
    uint64_t start_line = 0;   // header (or first frame), 0 = none
    uint64_t last_line = 0;    // its latest frame
    bool closed = false;       // an exception line ended it
    uint64_t closed_line = 0;  // that line
    int64_t rank = -1;
    RankFrom rank_from = RankFrom::kNone;
    // text: the line of the frame to show (the innermost); frame: that
    // frame without the line's prefix, what the template is made of.
    char host[kMaxFieldBytes], time[kMaxTimeBytes], text[kMaxTextBytes], frame[kMaxTextBytes];
    size_t host_len = 0, time_len = 0, text_len = 0, frame_len = 0;
  };
  struct Live {
    uint32_t source = kNoEntry;
    uint32_t context_entry = kNoEntry;  // latest traceback-context entry seen, and its line
    uint64_t context_line = 0;
    OpenStack python, native;
    OpenStack orphan;             // the last exception line with no traceback before it
    uint64_t traceback_line = 0;  // last "Traceback (most recent call last):"
    uint64_t known_line = 0;      // last line a known entry matched
    uint64_t hint_line = 0;       // open root-cause block, 0 = none
    bool hint_done = false;
    size_t last_progress = 0;  // index of the progress record used last
    // The launcher's failure table: the record being read. Its lines (exit
    // code, signal, the error file's traceback) are that rank's evidence.
    uint64_t record_line = 0;           // of its "rank :" line, 0 = none open
    size_t record = 0;                  // index in exits
    char pending_host[kMaxFieldBytes];  // "host :" comes before "rank :"
    size_t pending_host_len = 0;
    uint64_t pending_host_line = 0;
    bool in_root_block = false;
  };

  uint32_t find_group(uint32_t source, uint32_t entry, Str id, int64_t rank, const char *host, size_t host_len, bool create);
  void rehash();
  void note_candidate(uint32_t source, const fl_event *ev, int64_t rank, RankFrom from, const char *host, size_t host_len);
  void push_candidate(const Candidate &c);
  void note_stack_line(OpenStack *st, const fl_event *ev, int64_t rank, RankFrom from, const char *host, size_t host_len,
                       bool starts, bool innermost);
  void close_stack(uint32_t source, const OpenStack &st, CandidateKind kind);
  // The traceback-context entry whose frame lies in lines [first, last], as an interned id.
  Str context_in(uint64_t first, uint64_t last);
  void note_hint(uint32_t source, const fl_event *ev, const fb::Pattern *pat);
  void note_exit(uint32_t source, const fl_event *ev, const fb::Pattern *pat, const char *host, size_t host_len);
  bool in_exit_record(const fl_event *ev) const;
  const OpenStack *ranked_traceback_at(uint64_t line) const;
  void note_progress(uint32_t source, const fl_event *ev, int64_t rank, const char *host, size_t host_len);
  bool note_pid_rank(int64_t pid, int64_t rank, int64_t nranks, Str host);
  Str copy_from(const Evidence &o, Str s);
  void merge_group(const Evidence &o, const Group &g, uint32_t source);
  void compact_pool();
  void drop_group(uint32_t gi);  // erases a group (no-op for kNoEntry)

  Allocator alloc_;
  const Library *pack_ = nullptr;
  Text pool_;
  size_t pool_garbage_ = 0;  // bytes of pool_ no record uses any more (erased candidates)
  Vec<uint32_t> table_;      // open addressing over groups: index + 1, 0 = empty
  Live live_;
  uint64_t dropped_events_ = 0;
  int64_t world_size_ = -1;
  int64_t nodes_ = -1;
  // The first pid seen printing each device index (kDeviceSlots; larger indices are not tracked).
  int64_t pid_of_device_[kDeviceSlots];
  bool device_shared_ = false;
  void note_device(int64_t device, int64_t pid);
};

// Reads rank hints from a log's file name: "rank3", "rank-3", "rank_3",
// torchrun's --log-dir layout ".../attempt_N/<local_rank>/stdout.log".
// The number a group's first event captured as `name` ("name\0value\0"
// fields); -1 when absent or not a number.
int64_t group_field_number(const Evidence &ev, const Group &g, const char *name);

void source_hints_from_name(const char *name, size_t len, int64_t *rank, int64_t *local_rank);

}  // namespace faultline
