// A bounded queue between `faultline run`'s forwarding and its diagnosis.
#include "diagnosis_queue.h"

#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <cstring>
#include <utility>

namespace cli {

DiagnosisQueue::DiagnosisQueue(size_t capacity, Consume consume)
    : capacity_(capacity),
      piece_(std::max<size_t>(1, std::min(kMaxChunk, capacity))),
      consume_(std::move(consume)),
      ring_(capacity),
      hand_(piece_) {
  // The thread inherits our signal mask: blocked there, the forwarded
  // signals and SIGCHLD are handled where poll() waits for them.
  sigset_t all, saved;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &saved);
  worker_ = std::thread([this] { work(); });
  pthread_sigmask(SIG_SETMASK, &saved, nullptr);
}

DiagnosisQueue::~DiagnosisQueue() { finish(); }

// The oldest chunk leaves the ring (consumed or dropped); an empty ring
// starts again at its beginning.
void DiagnosisQueue::release_oldest() {
  const Chunk &c = chunks_.front();
  used_ -= c.waste + c.len;
  chunks_.pop_front();
  if (chunks_.empty()) head_ = 0;
}

// The oldest waiting chunk goes unseen: the next one of its stream (waiting
// or still to come) is marked so that a line break stands in for it.
void DiagnosisQueue::drop_oldest() {
  const Chunk &c = chunks_.front();
  bool marked = false;
  for (size_t i = 1; i < chunks_.size() && !marked; i++)
    if (chunks_[i].stream == c.stream) marked = chunks_[i].after_drop = true;
  if (!marked) dropped_last_[c.stream] = true;
  stats_.dropped += c.len;
  release_oldest();
}

void DiagnosisQueue::push(int stream, const char *bytes, size_t len) {
  for (size_t at = 0; at < len; at += piece_) put(stream, bytes + at, std::min(piece_, len - at));
}

void DiagnosisQueue::put(int stream, const char *bytes, size_t len) {
  std::lock_guard<std::mutex> lock(mu_);
  stats_.pushed += len;
  for (;;) {
    const size_t waste = capacity_ - head_ < len ? capacity_ - head_ : 0;  // a chunk is never split by the ring's end
    if (used_ + waste + len <= capacity_) break;
    drop_oldest();  // an empty ring starts at 0, where len <= piece_ <= capacity_ fits
  }
  const size_t waste = capacity_ - head_ < len ? capacity_ - head_ : 0;
  const size_t at = waste ? 0 : head_;
  std::memcpy(ring_.data() + at, bytes, len);
  chunks_.push_back(Chunk{stream, dropped_last_[stream], at, len, waste});
  dropped_last_[stream] = false;
  head_ = at + len == capacity_ ? 0 : at + len;
  used_ += waste + len;
  ready_.notify_one();
}

// Behind: more than half the capacity waits, and the command is still
// running (once it is done, what is left is the end of its output, where
// failures are reported: all of it is diagnosed).
bool DiagnosisQueue::behind() const { return !finishing_ && used_ > capacity_ / 2; }

void DiagnosisQueue::work() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    ready_.wait(lock, [this] { return finishing_ || !chunks_.empty(); });
    if (chunks_.empty()) return;  // finishing, and nothing left
    // Out of the ring before the lock is let go: the producer may reuse its room.
    const Chunk c = chunks_.front();
    std::memcpy(hand_.data(), ring_.data() + c.at, c.len);
    release_oldest();
    Use use = behind() ? Use::kSkip : Use::kDiagnose;
    lock.unlock();  // the consumer's time is not the producer's
    if (c.after_drop) consume_(c.stream, "\n", 1, Use::kSkip);
    // Slice by slice, so that falling behind in the middle of a slow chunk
    // (key-dense lines) passes over its rest instead of filling the queue.
    for (size_t at = 0; at < c.len;) {
      const size_t n = use == Use::kSkip ? c.len - at : std::min(kSlice, c.len - at);
      consume_(c.stream, hand_.data() + at, n, use);
      at += n;
      lock.lock();
      if (use == Use::kSkip) stats_.skipped += n;
      if (at < c.len && behind()) use = Use::kSkip;
      lock.unlock();
    }
    lock.lock();
  }
}

void DiagnosisQueue::finish() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    finishing_ = true;
  }
  ready_.notify_one();
  if (worker_.joinable()) worker_.join();
}

DiagnosisQueue::Stats DiagnosisQueue::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

}  // namespace cli
