// Scanning arbitrary bytes through the default pack, in random chunks. The
// header promises "the events are the same for any chunking": each input is
// scanned in one chunk by one scanner, and twice (two streams, two random
// chunkings) by a second scanner, and every event field, the number of
// events and the stats must agree. The second stream also checks that
// fl_scanner_finish resets the scanner (line numbers and offsets from 0).
// A third scanner passes over some of the chunks (fl_scanner_skip): it must
// count the same lines, and each of its events must be one of the whole
// scan's or flagged as on a cut line.
//
// Input: byte 0 picks max_line_bytes (tiny values make truncation common),
// bytes 1-4 seed the chunk sizes, the rest is the log.
#include <algorithm>
#include <iterator>
#include <string>

#include "fuzz_common.h"

namespace {

void put(std::string *out, const void *p, size_t n) {
  out->append(reinterpret_cast<const char *>(&n), sizeof n);  // length first: no ambiguity
  if (n) out->append(static_cast<const char *>(p), n);
}
template <typename T>
void put_num(std::string *out, T v) {
  out->append(reinterpret_cast<const char *>(&v), sizeof v);
}

// Every field of an event, as bytes (pointers are valid only in the callback).
int record(void *ctx, const fl_event *ev) {
  std::string e;
  put_num(&e, ev->flags), put_num(&e, ev->entry), put_num(&e, ev->pattern_index);
  put(&e, ev->entry_id, std::strlen(ev->entry_id)), put(&e, ev->pattern, std::strlen(ev->pattern));
  put_num(&e, ev->line_number), put_num(&e, ev->byte_offset), put(&e, ev->line, ev->line_len);
  put_num(&e, ev->capture_count);
  for (uint32_t i = 0; i < ev->capture_count; i++)
    put(&e, ev->captures[i].name, std::strlen(ev->captures[i].name)), put(&e, ev->captures[i].value, ev->captures[i].value_len);
  put_num(&e, ev->rank), put_num(&e, ev->local_rank), put_num(&e, ev->pid), put_num(&e, ev->device);
  put(&e, ev->host, ev->host ? ev->host_len : 0), put_num(&e, ev->host != nullptr);
  put(&e, ev->time, ev->time ? ev->time_len : 0), put_num(&e, ev->time != nullptr);
  static_cast<std::vector<std::string> *>(ctx)->push_back(std::move(e));
  return 0;
}

fl_scanner_stats stats_of(const fl_scanner *s) {
  fl_scanner_stats st{};
  st.struct_size = sizeof st;
  FUZZ_CHECK(fl_scanner_get_stats(s, &st) == FL_OK);
  return st;
}

// One stream fed in chunks whose sizes come from `seed` (xorshift32): mostly
// tiny (1-8 bytes, to split "\r\n", ANSI escapes and keys), some large.
std::vector<std::string> scan_chunked(fl_scanner *s, const uint8_t *log, size_t n, uint32_t seed) {
  std::vector<std::string> events;
  uint32_t x = seed | 1;
  for (size_t at = 0; at < n;) {
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    size_t len = (x >> 8) % 4 == 0 ? 1 + (x >> 12) % 4096 : 1 + (x >> 12) % 8;
    len = std::min(len, n - at);
    FUZZ_CHECK(fl_scanner_feed(s, log + at, len, record, &events) == FL_OK);
    at += len;
  }
  if (x % 3 == 0) FUZZ_CHECK(fl_scanner_feed(s, log, 0, record, &events) == FL_OK);  // empty chunks are fine too
  FUZZ_CHECK(fl_scanner_finish(s, record, &events) == FL_OK);
  return events;
}

// The stream again, every other chunk (by the seed) passed over.
std::vector<std::string> scan_skipping(fl_scanner *s, const uint8_t *log, size_t n, uint32_t seed) {
  std::vector<std::string> events;
  uint32_t x = seed | 1;
  for (size_t at = 0; at < n;) {
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    const size_t len = std::min<size_t>(1 + (x >> 12) % 512, n - at);
    if (x & 1)
      FUZZ_CHECK(fl_scanner_skip(s, log + at, len, record, &events) == FL_OK);
    else
      FUZZ_CHECK(fl_scanner_feed(s, log + at, len, record, &events) == FL_OK);
    at += len;
  }
  FUZZ_CHECK(fl_scanner_finish(s, record, &events) == FL_OK);
  return events;
}

uint32_t flags_of(const std::string &recorded) {
  uint32_t flags;
  std::memcpy(&flags, recorded.data(), sizeof flags);
  return flags;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 5) return 0;
  static const uint32_t kMaxLine[] = {0, 1, 2, 3, 7, 16, 80, 200, 4096};
  fl_scanner_options opts = FL_SCANNER_OPTIONS_INIT;
  opts.max_line_bytes = kMaxLine[data[0] % std::size(kMaxLine)];
  uint32_t seed;
  std::memcpy(&seed, data + 1, 4);
  const uint8_t *log = data + 5;
  const size_t n = size - 5;

  fl_scanner *whole = nullptr, *chunked = nullptr;
  FUZZ_CHECK(fl_scanner_create(fuzz::default_pack(), &opts, &whole) == FL_OK);
  FUZZ_CHECK(fl_scanner_create(fuzz::default_pack(), &opts, &chunked) == FL_OK);
  std::vector<std::string> expected;
  FUZZ_CHECK(fl_scanner_feed(whole, log, n, record, &expected) == FL_OK);
  FUZZ_CHECK(fl_scanner_finish(whole, record, &expected) == FL_OK);
  const fl_scanner_stats one = stats_of(whole);

  FUZZ_CHECK(scan_chunked(chunked, log, n, seed) == expected);
  FUZZ_CHECK(scan_chunked(chunked, log, n, seed * 2654435761u) == expected);
  const fl_scanner_stats two = stats_of(chunked);
  FUZZ_CHECK(one.bytes == n);
  FUZZ_CHECK(one.events == expected.size());
  FUZZ_CHECK(two.bytes == 2 * one.bytes);
  FUZZ_CHECK(two.lines == 2 * one.lines);
  FUZZ_CHECK(two.events == 2 * one.events);
  FUZZ_CHECK(two.truncated_lines == 2 * one.truncated_lines);
  FUZZ_CHECK(two.candidate_lines == 2 * one.candidate_lines);

  fl_scanner *skipping = nullptr;
  FUZZ_CHECK(fl_scanner_create(fuzz::default_pack(), &opts, &skipping) == FL_OK);
  for (const std::string &e : scan_skipping(skipping, log, n, seed ^ 0x9e3779b9u))
    FUZZ_CHECK((flags_of(e) & FL_EVENT_LINE_TRUNCATED) || std::find(expected.begin(), expected.end(), e) != expected.end());
  FUZZ_CHECK(stats_of(skipping).lines == one.lines);

  fl_scanner_free(whole);
  fl_scanner_free(chunked);
  fl_scanner_free(skipping);
  return 0;
}
