// The line engine: a byte stream fed in chunks of any size becomes lines
// ('\n', "\r\n" or a bare '\r' end one), each kept to at most max_line_bytes
// whatever the chunking; lines the literal filter rules out are only counted,
// the others are cleaned of ANSI sequences and matched, and every entry match
// comes out as an fl_event carrying the line's frame. Nothing here allocates
// after create().
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/alloc.h"
#include "common/vocabulary.h"
#include "faultline.h"
#include "match/library.h"
#include "match/line_matcher.h"
#include "match/pack_reader.h"

namespace faultline {

// What the framing patterns of one line say: rank, host, ... Launchers stack
// their prefixes ("3: [rank5]: host:1:2 [5] NCCL ..."), so a value standing
// later in the line, nearer the message, is the more specific one and wins its
// field (srun's task id is a node index under torchrun).
struct LineFrame {
  int64_t number[4];        // rank, local_rank, pid, device (FrameField order); -1 = unset
  const char *host, *time;  // point into the line; NULL = unset
  size_t host_len, time_len;
  int32_t from[kFrameFieldCount];  // where in the line each field's value stands; -1 = unset

  void reset();
  // One capture of a framing pattern: `name` is its capture name, [a, b) its
  // offsets in `line`. Names that are not frame fields are ignored.
  void add(const char *name, const uint8_t *line, int32_t a, int32_t b);
};

class LineScanner {
 public:
  LineScanner() = default;
  ~LineScanner();
  LineScanner(const LineScanner &) = delete;
  LineScanner &operator=(const LineScanner &) = delete;

  // Sizes the line buffers from max_line_bytes (0 = kDefaultMaxLineBytes) and
  // the pack. Returns kNoMem on failure. The pack must outlive the scanner.
  Status create(const PackView *pack, uint32_t max_line_bytes, const Allocator &alloc);
  // The same over a library (one pack or a stack): events carry the
  // library's entry and pattern indices, and entries an upper pack replaced
  // or turned off report nothing. The library must outlive the scanner.
  Status create(const Library *lib, uint32_t max_line_bytes, const Allocator &alloc);

  // Feeds the next bytes of the stream. Complete lines are matched now, each
  // match reported to `fn` (events point into the chunk or the scanner's line
  // buffer: valid only during the call); a non-zero return suppresses further
  // calls until the next feed. Returns true when the callback asked to stop.
  bool feed(const uint8_t *p, size_t len, fl_event_fn fn, void *ctx);
  // Passes over the next bytes of the stream without matching them, for a
  // caller that fell behind: line numbers and offsets move on as if they
  // were fed, and the skipped lines count as lines (not as bytes). The line
  // they cut at their start is matched with what was fed of it (marked
  // truncated); the one they cut at their end is only counted.
  bool skip(const uint8_t *p, size_t len, fl_event_fn fn, void *ctx);
  // Ends the stream: the last line, if unterminated, is matched; then the
  // scanner starts a new stream (line numbers and offsets from 0; counters kept).
  bool finish(fl_event_fn fn, void *ctx);

  // Counters since create(): bytes, lines, truncated_lines, events,
  // candidate_lines, over_budget_lines (when the caller's struct has it).
  void get_stats(fl_scanner_stats *out) const;

 private:
  const Library *lib_ = nullptr;
  Library own_;  // the library of create(PackView)
  Allocator alloc_;
  // One matcher per pack of the library. A stack frames each line with every
  // pack's prefixes first, then matches each pack's entries (match()).
  LineMatcher matchers_[Library::kMaxLayers];
  uint32_t layer_ = 0;     // the pack whose matcher is reporting
  bool filtered_ = false;  // every pack has a usable literal filter
  uint32_t max_line_bytes_ = 0;

  // The line being assembled across chunks: at most max_line_bytes_ kept.
  uint8_t *line_ = nullptr;
  size_t line_len_ = 0;
  bool line_truncated_ = false;
  bool line_open_ = false;     // some bytes of the current line were seen
  bool line_cut_ = false;      // skip() passed over some of the current line: no more of it is kept
  bool line_skipped_ = false;  // ... over its start: it is only counted
  bool pending_cr_ = false;    // the last chunk ended in '\r': a '\n' next is part of that break
  uint8_t *clean_ = nullptr;   // the line with ANSI escape sequences removed
  fl_capture *captures_ = nullptr;
  uint32_t max_captures_ = 0;

  uint64_t offset_ = 0;       // stream offset of the next byte fed
  uint64_t line_start_ = 0;   // stream offset of the current line
  uint64_t line_number_ = 0;  // of the last completed line
  uint64_t bytes_ = 0, lines_ = 0, truncated_lines_ = 0, events_ = 0;
  uint64_t earned_to_ = 0;  // stream offset up to which the matcher's work budget was credited

  // The line being matched.
  LineFrame frame_{};
  const uint8_t *text_ = nullptr;
  size_t text_len_ = 0;
  bool text_truncated_ = false;

  // Per call: the user's callback and whether it asked to stop.
  fl_event_fn fn_ = nullptr;
  void *ctx_ = nullptr;
  bool stopped_ = false;

  static void on_match(void *self, uint32_t pattern_index, const int32_t *slots);
  void report(uint32_t pattern_index, const int32_t *slots);
  void match(const uint8_t *text, size_t len, bool truncated);
  void match_in_place(const uint8_t *p, size_t n);
  void count_plain_line(size_t n);
  void append(const uint8_t *p, size_t n);
  void reset_line();
  void end_carried_line();
  const uint8_t *after_pending_cr(const uint8_t *p);
  const uint8_t *close_carried_line(const uint8_t *p, const uint8_t *begin, const uint8_t *end, bool seen);
  void skip_lines(const uint8_t *p, const uint8_t *end, const uint8_t *chunk);
  void scan_filtered(const uint8_t *p, const uint8_t *end, const uint8_t *chunk);
  const uint8_t *next_key(const uint8_t *p, const uint8_t *end, const uint8_t **long_hits, const uint8_t **short_hits) const;
  void scan_each(const uint8_t *p, const uint8_t *end, const uint8_t *chunk);
};

}  // namespace faultline
