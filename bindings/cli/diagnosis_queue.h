// The command's output on its way from `faultline run`'s poll loop to the
// diagnosers, which run on a thread of their own: the loop hands a chunk
// over and goes back to forwarding, however slow diagnosis is.
//
// The queue is a ring of `capacity` bytes allocated once (no allocation per
// chunk: memory stays flat whatever the output). When more than half of it
// waits, the worker passes over the oldest chunks (fl_diagnoser_skip: their
// lines are counted, not matched, at memory speed) until it has caught up; at the end it
// diagnoses all that is left, so the last output, where failures are
// reported, is read whole. Only when the queue is full, the oldest chunks are
// dropped unseen (their line count is lost; a line break stands in for
// them). Evidence may be lost; output never is, nor is the loop slowed.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace cli {

class DiagnosisQueue {
 public:
  static constexpr int kStreams = 2;             // the command's stdout and stderr
  static constexpr size_t kSlice = 64 << 10;     // diagnosed at a time: a few ms at worst
  static constexpr size_t kMaxChunk = 1u << 20;  // bigger pushes are split (the worker's copy of one)

  enum class Use { kDiagnose, kSkip };
  // Called on the worker thread, in the order of the pushes.
  using Consume = std::function<void(int stream, const char *bytes, size_t len, Use use)>;

  // Starts the worker thread (with every signal blocked: they stay the
  // poll loop's). At most `capacity` bytes wait in the queue.
  DiagnosisQueue(size_t capacity, Consume consume);
  ~DiagnosisQueue();  // finish()es
  DiagnosisQueue(const DiagnosisQueue &) = delete;
  DiagnosisQueue &operator=(const DiagnosisQueue &) = delete;

  // Copies the chunk in, dropping the oldest waiting chunks if it does not
  // fit. Never waits for the consumer (only, at worst, for the worker's copy
  // of one chunk out of the ring). Not after finish().
  void push(int stream, const char *bytes, size_t len);

  // Lets the worker diagnose everything still queued, then joins it. Idempotent.
  void finish();

  struct Stats {
    uint64_t pushed = 0;   // bytes pushed
    uint64_t skipped = 0;  // bytes the worker passed over (counted, not matched)
    uint64_t dropped = 0;  // bytes dropped unseen because the queue was full
  };
  Stats stats() const;

 private:
  // A chunk in the ring: [at, at + len), after `waste` unused bytes at the
  // ring's end when it did not fit there.
  struct Chunk {
    int stream;
    bool after_drop;  // a chunk of the same stream was dropped just before it
    size_t at, len, waste;
  };

  void put(int stream, const char *bytes, size_t len);
  void work();
  void drop_oldest();
  void release_oldest();
  bool behind() const;

  const size_t capacity_;
  const size_t piece_;  // pushes are split into pieces of at most this: min(kMaxChunk, capacity_)
  const Consume consume_;
  std::vector<char> ring_;  // capacity_ bytes
  std::vector<char> hand_;  // the chunk being consumed, copied out of the ring (piece_ bytes)
  mutable std::mutex mu_;
  std::condition_variable ready_;
  std::deque<Chunk> chunks_;                      // oldest first, in ring order
  size_t head_ = 0;                               // where the next chunk goes
  size_t used_ = 0;                               // bytes of chunks_ in the ring, their waste included
  bool dropped_last_[kStreams] = {false, false};  // the stream's newest chunk was dropped
  Stats stats_;
  bool finishing_ = false;
  std::thread worker_;
};

}  // namespace cli
