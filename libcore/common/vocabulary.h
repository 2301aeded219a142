// The words signatures and the runtime must agree on: the frame fields a
// framing pattern may capture, the capture and pattern names the diagnosis
// reads, the tags and types that mean something to it, and the placeholders
// every fix command may use. A signature that misspells one is silently
// ignored by the diagnosis, so each is stated here once: the runtime reads
// these names and flc checks signatures against them (flc compile, flc lint).
#pragma once

#include <cstddef>
#include <cstdint>

namespace faultline {

// --- Frame fields: what a log prefix says about the line --------------------

enum class FrameField : uint8_t { kRank, kLocalRank, kPid, kDevice, kHost, kTime };
inline constexpr size_t kFrameFieldCount = 6;
// By FrameField; the first four are numbers, host and time are text.
inline constexpr const char *kFrameFieldNames[kFrameFieldCount] = {"rank", "local_rank", "pid", "device", "host", "time"};
// A logger header's severity, captured by framing patterns of loggers (glog's
// I/W/E/F, Python logging's INFO/WARNING/...). Behind a header below error
// level the line is a logged record, not a program's own last words: patterns
// anchored at the message start ("^ImportError: ...", an uncaught exception's
// line) do not read it.
inline constexpr const char *kFramingLevel = "level";

// --- Captures of entry patterns that the diagnosis reads (diagnose/evidence.cpp)

namespace capture {
inline constexpr const char *kRank = "rank";                 // a rank the message states ("for rank 3")
inline constexpr const char *kLocalRank = "local_rank";      // a local rank the message states
inline constexpr const char *kCulpritRank = "culprit_rank";  // a rank the message blames, not the printer
// The ranks a collective waits with ("[ready ranks: 5, 6, 3, 1, 4, 0]"): the
// one rank missing below the highest is the culprit.
inline constexpr const char *kReadyRanks = "ready_ranks";
// A rank whose collective differs from the printer's (a mismatch report that
// blames neither side): the rank most printers name is the odd one out.
inline constexpr const char *kDifferingRank = "differing_rank";
inline constexpr const char *kWorldSize = "world_size";    // the job's size, when stated
inline constexpr const char *kNodes = "nnodes";            // how many nodes the job has, when stated
inline constexpr const char *kFailedRank = "failed_rank";  // torchrun's root-cause block
inline constexpr const char *kFailedLocalRank = "failed_local_rank";
inline constexpr const char *kFailedHost = "failed_host";
inline constexpr const char *kExitcode = "exitcode";
inline constexpr const char *kPid = "pid";                       // in a failure record: the worker's pid
inline constexpr const char *kAgentExitcode = "agent_exitcode";  // torchrun's agent: "failed (exitcode: -9) local_rank: 0"
inline constexpr const char *kSignal = "signal";
inline constexpr const char *kTimeoutSeq = "timeout_seq";      // NCCL watchdog: the collective timed out on
inline constexpr const char *kOpType = "op_type";              // ... and its operation (ALLREDUCE, _ALLGATHER_BASE)
inline constexpr const char *kLastEnqueued = "last_enqueued";  // NCCL progress of a rank
inline constexpr const char *kLastCompleted = "last_completed";
inline constexpr const char *kCommRank = "comm_rank";  // with a pid: the printing process's rank (NCCL comm, tree, ring lines)
inline constexpr const char *kNranks = "nranks";
inline constexpr const char *kException = "exception";  // "Type: message" of an uncaught exception
inline constexpr const char *kMessage = "message";
inline constexpr const char *kFrame = "frame";  // one frame of a stack, without the line's prefix
// torchrun's rendezvous result of an agent with one worker ("global_ranks=[R]"):
// the console's lines without a rank are that worker's.
inline constexpr const char *kAgentWorkerRank = "agent_worker_rank";
}  // namespace capture

// Where the diagnosis reads a name: in any entry's events, only in entries
// tagged `generic`, or only in launcher reports of worker exits (torchrun's
// failure table, the agent's "failed (exitcode: ..)" line, mpirun's notice;
// flc checks them in entries that define a `root_cause_header` pattern).
enum class ReadIn : uint8_t { kAnyEntry, kGenericEntries, kLauncherBlock };

struct CaptureWord {
  const char *name;
  bool number;  // read as a decimal number: any other text is ignored
  ReadIn where;
};
inline constexpr CaptureWord kDiagnosisCaptures[] = {
    {capture::kRank, true, ReadIn::kAnyEntry},
    {capture::kLocalRank, true, ReadIn::kAnyEntry},
    {capture::kCulpritRank, true, ReadIn::kAnyEntry},
    {capture::kReadyRanks, false, ReadIn::kAnyEntry},
    {capture::kDifferingRank, true, ReadIn::kAnyEntry},
    {capture::kTimeoutSeq, true, ReadIn::kAnyEntry},
    {capture::kOpType, false, ReadIn::kAnyEntry},
    {capture::kLastEnqueued, true, ReadIn::kAnyEntry},
    {capture::kLastCompleted, true, ReadIn::kAnyEntry},
    {capture::kWorldSize, true, ReadIn::kGenericEntries},
    {capture::kNodes, true, ReadIn::kGenericEntries},
    {capture::kCommRank, true, ReadIn::kGenericEntries},
    {capture::kNranks, true, ReadIn::kGenericEntries},
    {capture::kAgentWorkerRank, true, ReadIn::kGenericEntries},
    {capture::kException, false, ReadIn::kGenericEntries},
    {capture::kMessage, false, ReadIn::kGenericEntries},
    {capture::kFrame, false, ReadIn::kGenericEntries},
    {capture::kFailedRank, true, ReadIn::kAnyEntry},
    {capture::kFailedLocalRank, true, ReadIn::kAnyEntry},
    {capture::kFailedHost, false, ReadIn::kAnyEntry},
    {capture::kExitcode, true, ReadIn::kLauncherBlock},
    {capture::kAgentExitcode, true, ReadIn::kLauncherBlock},
    {capture::kSignal, true, ReadIn::kAnyEntry},
};

// --- Pattern names the diagnosis reads ---------------------------------------

namespace pattern {
inline constexpr const char *kRootCauseHeader = "root_cause_header";  // torchrun's "Root Cause" block
inline constexpr const char *kTracebackHeader = "traceback_header";   // "Traceback (most recent call last):"
inline constexpr const char *kExceptionLine = "exception_line";       // the exception ending it
inline constexpr const char *kTracebackFrame = "traceback_frame";     // '  File "x.py", line 3, in f'
inline constexpr const char *kNativeFrame = "native_frame";           // c10's "frame #3: ..." C++ stack line
// A launcher's record of a worker that raised an uncaught exception, its
// traceback below ("-- Process 3 terminated with the following error:"):
// that worker exited with status 1 (spawn's _wrap() calls sys.exit(1)).
inline constexpr const char *kRaisedRecordHeader = "raised_record_header";
}  // namespace pattern

struct PatternWord {
  const char *name;
  ReadIn where;
};
inline constexpr PatternWord kDiagnosisPatterns[] = {
    {pattern::kRootCauseHeader, ReadIn::kAnyEntry},     {pattern::kTracebackHeader, ReadIn::kGenericEntries},
    {pattern::kExceptionLine, ReadIn::kGenericEntries}, {pattern::kTracebackFrame, ReadIn::kGenericEntries},
    {pattern::kNativeFrame, ReadIn::kGenericEntries},   {pattern::kRaisedRecordHeader, ReadIn::kAnyEntry},
};

// --- Tags and types ----------------------------------------------------------

// Entries tagged `generic` (any uncaught exception, NCCL init lines) feed the
// unknown-failure path and rank attribution instead of naming a failure.
inline constexpr const char *kTagGeneric = "generic";
// Generic entries tagged `completion` say the run finished normally: what a
// process survived before such a line is no fatal end (condition `completed-after`).
inline constexpr const char *kTagCompletion = "completion";
// Generic entries tagged `traceback-context` read a traceback's frames
// (code that loads checkpoints, initializes CUDA): an uncaught exception no
// entry explains, raised under such a frame, is that entry's kind of failure.
inline constexpr const char *kTagTracebackContext = "traceback-context";
// Entries tagged `catch-all` name a kind of failure by its wording alone
// ("... is not divisible by ..."): on the line a more specific entry also
// reads, the specific one is the root.
inline constexpr const char *kTagCatchAll = "catch-all";
// The entry tagged `collective-order` is the diagnosis' name for ranks that
// timed out on the same collective (one SeqNum) in different operations:
// their code issued collectives in different orders (Evidence::infer_collective_order).
inline constexpr const char *kTagCollectiveOrder = "collective-order";
// Entries tagged `waits-on-peers` report that the printing rank waited for
// other ranks and gave up (a collective or peer timeout): when every rank but
// one reported a failure, the silent one is where the failure began, not the
// printer; and such a wait, not a lone crash signal, is what kills a process.
inline constexpr const char *kTagWaitsOnPeers = "waits-on-peers";
// Symptom entries tagged `early-warning` are the run going bad (an fp16
// overflow streak into the low loss scales): a sign while the run goes on, the
// failure when it is the last thing the log holds.
inline constexpr const char *kTagEarlyWarning = "early-warning";
// Wrapper entries tagged `nested-error` announce a child process's own error,
// printed after them with its traceback (torch.multiprocessing.spawn's "--
// Process N terminated with the following error:"): the parent's exception
// just before such a line only restates the child's, which is the one to read.
inline constexpr const char *kTagNestedError = "nested-error";
// The type of entries that do not say what kind of failure they report.
inline constexpr const char *kTypeOther = "other";

// --- Placeholders every fix and verify command may use, beside the captures of
// its own entry: the root's rank and host.
inline constexpr const char *kPlaceholderRank = "rank";
inline constexpr const char *kPlaceholderHost = "host";

}  // namespace faultline
