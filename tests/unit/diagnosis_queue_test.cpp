// `faultline run`'s diagnosis queue (bindings/cli/diagnosis_queue.h): the
// poll loop never waits for the consumer, the queue never holds more than its
// capacity, and what the consumer gets is what the policy says: the oldest
// chunks dropped when full (a line break standing in), passed over while more
// than half the queue waits, the end always diagnosed.
#include "diagnosis_queue.h"

#include <doctest/doctest.h>
#include <pthread.h>
#include <signal.h>

#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

using cli::DiagnosisQueue;

namespace {

constexpr size_t kChunk = 1024;

// Chunk `id` of `stream`: whole lines naming both, kChunk bytes.
std::string chunk_text(int stream, int id) {
  std::string line = "stream " + std::to_string(stream) + " chunk " + std::to_string(id) + "\n";
  std::string s;
  while (s.size() + line.size() <= kChunk) s += line;
  s.resize(kChunk - 1, '.');
  return s + "\n";
}

struct Got {
  int stream;
  int id;  // -1: the line break that stands in for dropped chunks; -2: part of a bigger chunk
  DiagnosisQueue::Use use;
  size_t len;
};

// Records what it is given; holds the first call until released, and lets
// the test wait until it has seen a number of chunks.
struct Consumer {
  std::mutex mu;
  std::condition_variable cv;
  bool released = false;
  std::vector<Got> got;
  size_t entered = 0;  // calls begun
  bool signals_blocked = true;

  DiagnosisQueue::Consume fn() {
    return [this](int stream, const char *bytes, size_t len, DiagnosisQueue::Use use) {
      sigset_t now;
      pthread_sigmask(SIG_BLOCK, nullptr, &now);
      std::unique_lock<std::mutex> lock(mu);
      signals_blocked = signals_blocked && sigismember(&now, SIGCHLD) && sigismember(&now, SIGTERM);
      entered++;
      cv.notify_all();
      cv.wait(lock, [this] { return released; });
      const std::string s(bytes, len);
      int id = s == "\n" ? -1 : -2;
      if (len == kChunk) {
        id = std::stoi(s.substr(s.find("chunk ") + 6));
        CHECK(s == chunk_text(stream, id));
      }
      got.push_back(Got{stream, id, use, len});
      cv.notify_all();
    };
  }
  void release() {
    std::lock_guard<std::mutex> lock(mu);
    released = true;
    cv.notify_all();
  }
  // Until the consumer holds its first chunk (the worker took it alone).
  void wait_entered() {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return entered > 0; });
  }
  void wait_for(size_t n) {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return got.size() >= n; });
  }
};

}  // namespace

TEST_CASE("diagnosis queue: a consumer that keeps up gets every chunk, diagnosed, in order") {
  Consumer c;
  c.release();
  DiagnosisQueue q(64 << 20, c.fn());
  for (int i = 0; i < 1000; i++) q.push(i % 2, chunk_text(i % 2, i).data(), kChunk);
  q.finish();
  REQUIRE(c.got.size() == 1000);
  for (int i = 0; i < 1000; i++) {
    CHECK(c.got[static_cast<size_t>(i)].id == i);
    CHECK(c.got[static_cast<size_t>(i)].stream == i % 2);
    CHECK(c.got[static_cast<size_t>(i)].use == DiagnosisQueue::Use::kDiagnose);
  }
  CHECK(q.stats().pushed == 1000 * kChunk);
  CHECK(q.stats().skipped == 0);
  CHECK(q.stats().dropped == 0);
  CHECK(c.signals_blocked);
}

TEST_CASE("diagnosis queue: a stalled consumer never holds up push; the oldest chunks go, the newest stay") {
  Consumer c;  // stalled in its first call until released
  const size_t capacity = 64 * kChunk;
  DiagnosisQueue q(capacity, c.fn());
  const int n = 3000;
  // Two streams interleaved: 0 writes two chunks for each of 1's.
  q.push(0, chunk_text(0, 0).data(), kChunk);
  c.wait_entered();
  for (int i = 1; i < n; i++) q.push(i % 3 == 2, chunk_text(i % 3 == 2, i).data(), kChunk);  // returns: never waits
  const auto during = q.stats();
  CHECK(during.pushed == n * kChunk);
  CHECK(during.dropped >= (n - 64 - 1) * kChunk);  // 64 fit, one is in the consumer's hands
  c.release();
  q.finish();
  const auto s = q.stats();
  // What was delivered: the chunk the consumer held (copied out of the
  // queue), then at most what the capacity holds, the newest ones, each
  // stream in order.
  size_t delivered = 0;
  int last_id = -1;
  bool marker_due[2] = {false, false};
  int last_of[2] = {-1, -1};
  for (const Got &g : c.got) {
    if (g.id < 0) {
      marker_due[g.stream] = true;
      CHECK(g.use == DiagnosisQueue::Use::kSkip);
      continue;
    }
    delivered++;
    CHECK(g.id > last_id);
    last_id = g.id;
    // A stream's chunks that follow a drop of that stream come after its marker.
    int expected_prev = -1;
    for (int k = g.id - 1; k >= 0; k--)
      if ((k % 3 == 2) == (g.stream == 1)) {
        expected_prev = k;
        break;
      }
    if (last_of[g.stream] != expected_prev) CHECK_MESSAGE(marker_due[g.stream], "chunk " << g.id << " after a drop, no marker");
    marker_due[g.stream] = false;
    last_of[g.stream] = g.id;
  }
  CHECK(c.got.front().id == 0);
  CHECK(delivered <= capacity / kChunk + 1);
  CHECK(last_id == n - 1);
  CHECK(c.got.back().use == DiagnosisQueue::Use::kDiagnose);  // the end of the output is read
  CHECK(delivered * kChunk + s.dropped == s.pushed);
}

TEST_CASE("diagnosis queue: more than half the capacity waiting, the worker passes over the oldest") {
  Consumer c;
  const int n = 60;  // 60 KiB pushed into 64: nothing dropped
  DiagnosisQueue q(64 * kChunk, c.fn());
  q.push(0, chunk_text(0, 0).data(), kChunk);
  c.wait_entered();
  for (int i = 1; i < n; i++) q.push(0, chunk_text(0, i).data(), kChunk);
  c.release();
  c.wait_for(n);  // all consumed before finish(): the end too is judged by the policy
  q.finish();
  REQUIRE(c.got.size() == static_cast<size_t>(n));
  // Chunk i is taken with chunks i+1..59 waiting behind it: passed over while
  // those are more than 32 KiB (i < 27). Chunk 0 was taken alone.
  for (int i = 0; i < n; i++) {
    CHECK(c.got[static_cast<size_t>(i)].id == i);
    const bool skip = i > 0 && (n - 1 - i) * kChunk > 32 * kChunk;
    CHECK_MESSAGE((c.got[static_cast<size_t>(i)].use == DiagnosisQueue::Use::kSkip) == skip, "chunk " << i);
  }
  CHECK(q.stats().skipped == 26 * kChunk);
  CHECK(q.stats().dropped == 0);
}

TEST_CASE("diagnosis queue: falling behind in the middle of a chunk passes over the rest of it") {
  Consumer c;
  const size_t big = 8 * DiagnosisQueue::kSlice;
  DiagnosisQueue q(4 * big, c.fn());
  q.push(0, std::string(big, '\n').data(), big);
  c.wait_entered();    // holding the big chunk's first slice
  const int n = 1100;  // more than half the capacity (2 * big) waits behind it, all of it fits
  for (int i = 0; i < n; i++) q.push(1, chunk_text(1, i).data(), kChunk);
  c.release();
  c.wait_for(2 + n);  // judged by the policy before finish() says the end has come
  q.finish();
  REQUIRE(c.got.size() >= 2);
  CHECK(c.got[0].stream == 0);
  CHECK(c.got[0].len == DiagnosisQueue::kSlice);
  CHECK(c.got[0].use == DiagnosisQueue::Use::kDiagnose);
  CHECK(c.got[1].stream == 0);
  CHECK(c.got[1].len == big - DiagnosisQueue::kSlice);  // the rest, at once
  CHECK(c.got[1].use == DiagnosisQueue::Use::kSkip);
  CHECK(q.stats().dropped == 0);
  CHECK(c.got.back().use == DiagnosisQueue::Use::kDiagnose);
}
