// A bounded queue between `faultline run`'s forwarding and its diagnosis.
#include "diagnosis_queue.h"

#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <utility>

namespace cli {

DiagnosisQueue::DiagnosisQueue(size_t capacity, Consume consume) : capacity_(capacity), consume_(std::move(consume)) {
  // The thread inherits our signal mask: blocked there, the forwarded
  // signals and SIGCHLD are handled where poll() waits for them.
  sigset_t all, saved;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &saved);
  worker_ = std::thread([this] { work(); });
  pthread_sigmask(SIG_SETMASK, &saved, nullptr);
}

DiagnosisQueue::~DiagnosisQueue() { finish(); }

// The oldest waiting chunk goes unseen: the next one of its stream (waiting
// or still to come) is marked so that a line break stands in for it.
void DiagnosisQueue::drop_oldest() {
  Chunk &c = chunks_.front();
  bool marked = false;
  for (size_t i = 1; i < chunks_.size() && !marked; i++)
    if (chunks_[i].stream == c.stream) marked = chunks_[i].after_drop = true;
  if (!marked) dropped_last_[c.stream] = true;
  stats_.dropped += c.bytes.size();
  queued_bytes_ -= c.bytes.size();
  chunks_.pop_front();
}

void DiagnosisQueue::push(int stream, const char *bytes, size_t len) {
  if (len == 0) return;
  std::lock_guard<std::mutex> lock(mu_);
  stats_.pushed += len;
  while (!chunks_.empty() && len > capacity_ - queued_bytes_) drop_oldest();
  if (len > capacity_ - queued_bytes_) {  // bigger than the room the worker's chunk leaves
    dropped_last_[stream] = true;
    stats_.dropped += len;
    return;
  }
  chunks_.push_back(Chunk{stream, dropped_last_[stream], std::vector<char>(bytes, bytes + len)});
  dropped_last_[stream] = false;
  queued_bytes_ += len;
  ready_.notify_one();
}

// Behind: more than half the capacity waits after the chunk in hand, and the
// command is still running (once it is done, what is left is the end of its
// output, where failures are reported: all of it is diagnosed).
bool DiagnosisQueue::behind(const Chunk &in_hand) const {
  return !finishing_ && queued_bytes_ - in_hand.bytes.size() > capacity_ / 2;
}

void DiagnosisQueue::work() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    ready_.wait(lock, [this] { return finishing_ || !chunks_.empty(); });
    if (chunks_.empty()) return;  // finishing, and nothing left
    Chunk c = std::move(chunks_.front());
    chunks_.pop_front();
    Use use = behind(c) ? Use::kSkip : Use::kDiagnose;
    lock.unlock();  // the consumer's time is not the producer's
    if (c.after_drop) consume_(c.stream, "\n", 1, Use::kSkip);
    // Slice by slice, so that falling behind in the middle of a slow chunk
    // (key-dense lines) passes over its rest instead of filling the queue.
    const size_t size = c.bytes.size();
    for (size_t at = 0; at < size;) {
      const size_t n = use == Use::kSkip ? size - at : std::min(kSlice, size - at);
      consume_(c.stream, c.bytes.data() + at, n, use);
      at += n;
      lock.lock();
      if (use == Use::kSkip) stats_.skipped += n;
      if (at < size && behind(c)) use = Use::kSkip;
      lock.unlock();
    }
    lock.lock();
    queued_bytes_ -= size;  // room only now: the bound covers the chunk in hand
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
