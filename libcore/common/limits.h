// Every limit of faultline in one place, read by flc and the runtime alike:
// what flc refuses to compile is what the runtime refuses to load, and what
// the evidence keeps of a log is stated here once (docs/GUARANTEES.md explains
// each). Two kinds:
// - fixed by a format: a width in the pack, a partial or a bit mask. Changing
//   one changes the format; they are not overridable.
// - tunable: bounds on work and memory, each overridable when building
//   (-DFL_MAX_GROUPS=...), as YARA's limits.h allows.
#pragma once

#include <cstddef>
#include <cstdint>

// --- Tunable -----------------------------------------------------------------

// A log line longer than this is cut for matching and reported as truncated
// (fl_scanner_options.max_line_bytes = 0 means this).
#ifndef FL_DEFAULT_MAX_LINE_BYTES
#define FL_DEFAULT_MAX_LINE_BYTES (64 * 1024)
#endif

// The matcher's work on lines that hold keys, as a token bucket of work units
// (one unit: about one DFA step, a nanosecond): every byte of the stream earns
// FL_MATCH_WORK_PER_BYTE units, at most FL_MATCH_WORK_RESERVE are saved up, and
// searching a line for keys, running a DFA over it or confirming a pattern
// spends them. Real logs
// match so rarely that the bucket stays full; a stream of lines packed with
// keys empties it, and then matching stops early on a line (what it matched so
// far is kept, the line is counted) instead of running at a few hundred KB/s.
// Bounds the matcher's cost per byte, whatever the input, below 20x that of a
// healthy log (docs/GUARANTEES.md). The largest real logs spend 1-2 units a byte.
#ifndef FL_MATCH_WORK_PER_BYTE
#define FL_MATCH_WORK_PER_BYTE 3
#endif
#ifndef FL_MATCH_WORK_RESERVE
#define FL_MATCH_WORK_RESERVE (1u << 28)
#endif

// Evidence groups (entry, rank, host per source); events beyond are counted
// as dropped.
#ifndef FL_MAX_GROUPS
#define FL_MAX_GROUPS (1u << 16)
#endif

// Bytes kept of a matched line, and of one captured value.
#ifndef FL_MAX_TEXT_BYTES
#define FL_MAX_TEXT_BYTES 480
#endif
#ifndef FL_MAX_FIELD_BYTES
#define FL_MAX_FIELD_BYTES 160
#endif

// Bytes kept of a line's timestamp.
#ifndef FL_MAX_TIME_BYTES
#define FL_MAX_TIME_BYTES 64
#endif

// Captured fields kept per evidence group.
#ifndef FL_MAX_FIELDS
#define FL_MAX_FIELDS 12
#endif

// Fatal-looking Python exception lines kept per source (failures no entry knows).
#ifndef FL_MAX_CANDIDATES_PER_SOURCE
#define FL_MAX_CANDIDATES_PER_SOURCE 16
#endif

// Lines from "Traceback (most recent call last):" to the exception it ends in.
#ifndef FL_TRACEBACK_REACH
#define FL_TRACEBACK_REACH 400
#endif

// Lines at the end of a log where an uncaught exception counts as fatal.
#ifndef FL_FATAL_TAIL_LINES
#define FL_FATAL_TAIL_LINES 64
#endif

// Lines from one frame of a stack to the next: Python prints the source
// line and, since 3.11, a line of carets under a frame; a larger gap ends it.
#ifndef FL_STACK_LINE_GAP
#define FL_STACK_LINE_GAP 6
#endif

// NCCL "comm ... rank R nranks N" records (which pid is which rank).
// Log prefixes peeled off the front of one line ("time host | 3: [rank3]: ..."):
// each framing pattern is taken once, so this only bounds the rounds.
#ifndef FL_MAX_STACKED_PREFIXES
#define FL_MAX_STACKED_PREFIXES 8
#endif

// Worker exits the launchers report (torchrun's failure table lists every
// failed rank of the job).
#ifndef FL_MAX_WORKER_EXITS
#define FL_MAX_WORKER_EXITS 4096
#endif
// Lines after a failure record's "rank :" line that still belong to it (its
// exit code, signal and the error file's traceback).
#ifndef FL_EXIT_RECORD_REACH
#define FL_EXIT_RECORD_REACH 200
#endif

#ifndef FL_MAX_PID_RANKS
#define FL_MAX_PID_RANKS 4096
#endif

// NCCL progress records, one per (source, rank, host).
#ifndef FL_MAX_PROGRESS
#define FL_MAX_PROGRESS 1024
#endif

// Ranks 0..N checked one by one for the one that did not time out (when NCCL
// progress figures are missing); larger jobs skip this sweep.
#ifndef FL_MAX_SWEPT_RANKS
#define FL_MAX_SWEPT_RANKS 4096
#endif

// Ranks listed per finding of a report; more are counted, not listed.
#ifndef FL_MAX_RANKS_LISTED
#define FL_MAX_RANKS_LISTED 32
#endif

// The FlatBuffers verifier's bounds: far above any real pack, low enough that
// a crafted one cannot make verification itself expensive.
#ifndef FL_VERIFIER_MAX_DEPTH
#define FL_VERIFIER_MAX_DEPTH 16
#endif
#ifndef FL_VERIFIER_MAX_TABLES
#define FL_VERIFIER_MAX_TABLES (4u << 20)
#endif

// Signed packs (include/faultline.h): a detached signature file (<pack>.sig)
// is read only when it is at most this large (a faultline signature is 80
// bytes, PACK_FORMAT.md "Signatures"); a larger one is refused unread. A pack
// whose signature is checked is read into memory, at most this many bytes.
#ifndef FL_MAX_SIGNATURE_BYTES
#define FL_MAX_SIGNATURE_BYTES 512
#endif
#ifndef FL_MAX_SIGNED_PACK_BYTES
#define FL_MAX_SIGNED_PACK_BYTES (1ull << 30)
#endif

// flc's budgets: instructions of one compiled pattern, and {m,n} counts.
#ifndef FL_MAX_PROGRAM_SIZE
#define FL_MAX_PROGRAM_SIZE 20000
#endif
#ifndef FL_MAX_REPEAT_COUNT
#define FL_MAX_REPEAT_COUNT 1000
#endif

namespace faultline {

// --- Fixed by the formats ----------------------------------------------------

// Patterns of one entry: evidence records which fired as a 32-bit mask
// (Group.pattern_mask, stored as u32 in partials).
inline constexpr uint32_t kMaxPatternsPerEntry = 32;
// Pieces of one pattern: the line matcher marks those seen in 32-bit masks.
inline constexpr uint32_t kMaxPiecesPerPattern = 32;
// Named captures of one pattern; its slots are 2 per capture plus the whole match.
inline constexpr uint32_t kMaxCaptures = 64;
inline constexpr uint32_t kMaxSlotCount = 2 * (kMaxCaptures + 1);
// Instructions of one program: the operand field x is 24 bits wide.
inline constexpr uint32_t kMaxProgramInsns = 1u << 20;
// The one-line summary fits a Kubernetes termination message line (1 KiB with its NUL).
inline constexpr size_t kMaxSummaryBytes = 1023;

static_assert(FL_MAX_PROGRAM_SIZE <= kMaxProgramInsns, "flc's program budget must fit the runtime's format");

// --- Tunable, as constants ---------------------------------------------------

inline constexpr uint32_t kDefaultMaxLineBytes = FL_DEFAULT_MAX_LINE_BYTES;
inline constexpr size_t kMaxGroups = FL_MAX_GROUPS;
inline constexpr size_t kMaxTextBytes = FL_MAX_TEXT_BYTES;
inline constexpr size_t kMaxFieldBytes = FL_MAX_FIELD_BYTES;
inline constexpr size_t kMaxTimeBytes = FL_MAX_TIME_BYTES;
inline constexpr size_t kMaxFields = FL_MAX_FIELDS;
inline constexpr size_t kMaxCandidatesPerSource = FL_MAX_CANDIDATES_PER_SOURCE;
// Strings of erased records are reclaimed once they exceed this and half the pool.
inline constexpr size_t kPoolSlackBytes = 1u << 20;
inline constexpr uint64_t kTracebackReach = FL_TRACEBACK_REACH;
inline constexpr uint64_t kFatalTailLines = FL_FATAL_TAIL_LINES;
inline constexpr uint64_t kStackLineGap = FL_STACK_LINE_GAP;
// An exception line without a traceback before it (an excerpt that lost its
// top) is a fatal end only among the last lines of its log; a message may
// run on for a few lines (a multi-line error, a terminal wrapping it).
inline constexpr uint64_t kOrphanTailLines = 6;
inline constexpr uint32_t kMaxStackedPrefixes = FL_MAX_STACKED_PREFIXES;
inline constexpr size_t kMaxPidRanks = FL_MAX_PID_RANKS;
inline constexpr size_t kMaxWorkerExits = FL_MAX_WORKER_EXITS;
// Device indices of one host whose printing processes the evidence tells apart (GPUs per node, with room).
inline constexpr size_t kDeviceSlots = 64;
inline constexpr uint64_t kExitRecordReach = FL_EXIT_RECORD_REACH;
inline constexpr size_t kMaxProgress = FL_MAX_PROGRESS;
inline constexpr uint32_t kMaxRanksListed = FL_MAX_RANKS_LISTED;
inline constexpr size_t kMaxSweptRanks = FL_MAX_SWEPT_RANKS;
inline constexpr uint32_t kVerifierMaxDepth = FL_VERIFIER_MAX_DEPTH;
inline constexpr uint32_t kVerifierMaxTables = FL_VERIFIER_MAX_TABLES;
inline constexpr uint32_t kMaxProgramSize = FL_MAX_PROGRAM_SIZE;
inline constexpr int kMaxRepeatCount = FL_MAX_REPEAT_COUNT;

}  // namespace faultline
