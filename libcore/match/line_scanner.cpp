#include "match/line_scanner.h"

#include <cstddef>
#include <cstring>

#include "common/decimal.h"
#include "common/limits.h"
#include "common/value_type.h"
#include "match/line_breaks.h"
#include "match/line_text.h"
#include "match/literal_filter.h"

namespace faultline {

namespace {

// A frame's numbers are never negative: anything else leaves the field unset (-1).
int64_t parse_number(const char *p, size_t n) {
  int64_t v = -1;
  return n > 0 && p[0] != '-' && parse_decimal(p, n, &v) ? v : -1;
}

// Finds line breaks in one chunk with memchr (vectorized in libc), each
// byte looked at once: the next '\n' is remembered, and '\r' (rare, but a
// flood of them is a tqdm log) is searched only up to it.
class BreakFinder {
 public:
  explicit BreakFinder(const uint8_t *end) : end_(end) {}
  // First '\n' or '\r' in [p, end), or end.
  const uint8_t *next(const uint8_t *p) {
    if (!nl_ || nl_ < p) {
      const void *nl = std::memchr(p, '\n', static_cast<size_t>(end_ - p));
      nl_ = nl ? static_cast<const uint8_t *>(nl) : end_;
    }
    if (!cr_ || cr_ < p) {
      const void *cr = std::memchr(p, '\r', static_cast<size_t>(nl_ - p));
      cr_ = cr ? static_cast<const uint8_t *>(cr) : nl_;
    }
    return cr_ < nl_ ? cr_ : nl_;
  }

 private:
  const uint8_t *end_;
  const uint8_t *nl_ = nullptr;  // next '\n' at or after the last query, or end_
  const uint8_t *cr_ = nullptr;  // next '\r' before nl_, or nl_
};

// Just past the last break in [p, end), or p when there is none.
const uint8_t *after_last_break(const uint8_t *p, const uint8_t *end) {
  const uint8_t *last = end;
  while (last > p && last[-1] != '\n' && last[-1] != '\r') last--;
  return last;
}

// Past the break at `brk` ("\r\n" is one break); [p, end) holds whole lines.
const uint8_t *after_break(const uint8_t *brk, const uint8_t *end) {
  return *brk == '\r' && brk + 1 < end && brk[1] == '\n' ? brk + 2 : brk + 1;
}

// Line breaks in [p, end), "\r\n" counted once; p does not start with the
// '\n' of a break begun before it.
uint64_t count_breaks(const uint8_t *p, const uint8_t *end) {
  uint64_t n = 0;
  auto one = [&](const uint8_t *at) { n += *at == '\r' || (*at == '\n' && !(at > p && at[-1] == '\r')); };
  const uint8_t *q = p;
  for (; end - q >= 64; q += 64) {
    uint64_t m = 0, nl = 0;
    const uint32_t newlines = line_masks64(q, &m, &nl);
    if (nl == m && !(q > p && q[-1] == '\r' && q[0] == '\n')) {  // only '\n' breaks: count them at once
      n += newlines;
      continue;
    }
    for (; m; m &= m - 1) one(q + __builtin_ctzll(m));  // ESC bits count nothing
  }
  for (; q < end; q++)
    if (*q == '\n' || *q == '\r') one(q);
  return n;
}

}  // namespace

// ---------------------------------------------------------------------------
// The frame of a line

void LineFrame::reset() {
  for (int64_t &n : number) n = -1;
  host = time = nullptr;
  host_len = time_len = 0;
  for (int32_t &f : from) f = -1;
}

void LineFrame::add(const char *name, const uint8_t *line, int32_t a, int32_t b) {
  size_t field = 0;
  while (field < kFrameFieldCount && std::strcmp(name, kFrameFieldNames[field]) != 0) field++;
  if (field == kFrameFieldCount || from[field] >= a) return;  // a value at or after this one is already set
  const char *v = reinterpret_cast<const char *>(line) + a;
  const size_t n = static_cast<size_t>(b - a);
  // A host is a host name or address, or none: it reaches summaries, Slurm
  // comments and commands an admin runs.
  if (static_cast<FrameField>(field) == FrameField::kHost && !value_fits(ValueType::kHostname, v, n)) return;
  from[field] = a;
  switch (static_cast<FrameField>(field)) {
    case FrameField::kHost:
      host = v, host_len = n;
      break;
    case FrameField::kTime:
      time = v, time_len = n;
      break;
    default:
      number[field] = parse_number(v, n);
      break;
  }
}

// ---------------------------------------------------------------------------
// Life cycle

LineScanner::~LineScanner() {
  alloc_.release(line_);
  alloc_.release(clean_);
  alloc_.release(captures_);
}

Status LineScanner::create(const PackView *pack, uint32_t max_line_bytes, const Allocator &alloc) {
  own_.init_single(pack);
  return create(&own_, max_line_bytes, alloc);
}

Status LineScanner::create(const Library *lib, uint32_t max_line_bytes, const Allocator &alloc) {
  lib_ = lib;
  alloc_ = alloc;
  max_line_bytes_ = max_line_bytes ? max_line_bytes : kDefaultMaxLineBytes;
  max_captures_ = lib->max_slot_count() / 2;
  line_ = static_cast<uint8_t *>(alloc_.allocate(max_line_bytes_));
  clean_ = static_cast<uint8_t *>(alloc_.allocate(max_line_bytes_));
  captures_ = static_cast<fl_capture *>(alloc_.allocate_zeroed(max_captures_ ? max_captures_ : 1, sizeof(fl_capture)));
  if (!line_ || !clean_ || !captures_) return Status::kNoMem;
  filtered_ = true;
  for (uint32_t k = 0; k < lib->layer_count(); k++) {
    const Status st = matchers_[k].create(&lib->layer(k), alloc_);
    if (st != Status::kOk) return st;
    matchers_[k].use_work_budget();
    filtered_ = filtered_ && lib->layer(k).literals.usable;
  }
  return Status::kOk;
}

void LineScanner::get_stats(fl_scanner_stats *out) const {
  out->bytes = bytes_;
  out->lines = lines_;
  out->truncated_lines = truncated_lines_;
  out->events = events_;
  // A stack's counts are summed over its packs.
  uint64_t candidates = 0, over_budget = 0;
  for (uint32_t k = 0; k < lib_->layer_count(); k++) {
    candidates += matchers_[k].candidate_lines();
    over_budget += matchers_[k].over_budget_lines();
  }
  out->candidate_lines = candidates;
  if (out->struct_size >= offsetof(fl_scanner_stats, over_budget_lines) + sizeof out->over_budget_lines)
    out->over_budget_lines = over_budget;
}

// ---------------------------------------------------------------------------
// One line

void LineScanner::on_match(void *self, uint32_t pattern_index, const int32_t *slots) {
  static_cast<LineScanner *>(self)->report(pattern_index, slots);
}

// A pattern matched the line being matched: a framing pattern adds to its
// frame (framing patterns come first), an entry pattern becomes an event.
void LineScanner::report(uint32_t pattern_index, const int32_t *slots) {
  const PackView &pack = lib_->layer(layer_);
  const fb::Pattern *pat = pack.pattern(pattern_index);
  const auto *names = pat->capture_names();
  if (pat->entry() == kFramingEntry) {
    if (!slots || !names) return;
    for (uint32_t g = 0; g < names->size(); g++) {
      const int32_t a = slots[2 * (g + 1)], b = slots[2 * (g + 1) + 1];
      if (a >= 0 && b >= a) frame_.add(names->Get(g)->c_str(), text_, a, b);
    }
    return;
  }
  const uint32_t entry = lib_->live_entry(layer_, pat->entry());
  if (entry == Library::kNone) return;  // replaced or turned off by a pack above
  events_++;
  if (stopped_ || !fn_) return;
  fl_event ev;
  std::memset(&ev, 0, sizeof ev);
  ev.struct_size = sizeof ev;
  ev.flags = text_truncated_ ? FL_EVENT_LINE_TRUNCATED : 0u;
  ev.entry = entry;
  ev.pattern_index = lib_->pattern_base(layer_) + pattern_index;
  ev.entry_id = pack.entry(pat->entry())->id()->c_str();
  ev.pattern = pat->name() ? pat->name()->c_str() : "";
  ev.line_number = line_number_;
  ev.byte_offset = line_start_;
  ev.line = reinterpret_cast<const char *>(text_);
  ev.line_len = text_len_;
  uint32_t n = 0;
  if (slots && names)
    for (uint32_t g = 0; g < names->size() && n < max_captures_; g++) {
      const int32_t a = slots[2 * (g + 1)], b = slots[2 * (g + 1) + 1];
      if (a < 0 || b < a) continue;
      captures_[n].name = names->Get(g)->c_str();
      captures_[n].value = reinterpret_cast<const char *>(text_) + a;
      captures_[n].value_len = static_cast<size_t>(b - a);
      n++;
    }
  ev.captures = n ? captures_ : nullptr;
  ev.capture_count = n;
  ev.rank = frame_.number[static_cast<int>(FrameField::kRank)];
  ev.local_rank = frame_.number[static_cast<int>(FrameField::kLocalRank)];
  ev.pid = frame_.number[static_cast<int>(FrameField::kPid)];
  ev.device = frame_.number[static_cast<int>(FrameField::kDevice)];
  ev.host = frame_.host;
  ev.host_len = frame_.host ? frame_.host_len : 0;
  ev.time = frame_.time;
  ev.time_len = frame_.time ? frame_.time_len : 0;
  if (fn_(ctx_, &ev) != 0) stopped_ = true;
}

// Matches one complete line (already cut to max_line_bytes).
void LineScanner::match(const uint8_t *text, size_t len, bool truncated) {
  // The work budget is earned by every byte of the stream up to this line's
  // end, by stream offset: the same whatever the chunking.
  const uint64_t line_end = line_start_ + len + 1;
  const uint32_t layers = lib_->layer_count();
  if (line_end > earned_to_) {
    for (uint32_t k = 0; k < layers; k++) matchers_[k].earn(line_end - earned_to_);
    earned_to_ = line_end;
  }
  line_number_++;
  lines_++;
  if (truncated) truncated_lines_++;
  if (std::memchr(text, 0x1b, len)) {
    len = strip_ansi(text, len, clean_);
    text = clean_;
  }
  frame_.reset();
  text_ = text;
  text_len_ = len;
  text_truncated_ = truncated;
  if (layers == 1) {
    layer_ = 0;
    matchers_[0].match_line(text, len, on_match, this);
    return;
  }
  // A stack: a site's own prefix format frames our entries' lines, and our
  // formats frame the site's entries, so every pack frames the line first.
  for (layer_ = 0; layer_ < layers; layer_++) matchers_[layer_].frame_line(text, len, on_match, this);
  for (layer_ = 0; layer_ < layers; layer_++) matchers_[layer_].match_line(text, len, on_match, this);
  layer_ = 0;
}

// Matches one whole line lying in the chunk, at `p`.
void LineScanner::match_in_place(const uint8_t *p, size_t n) {
  const bool truncated = n > max_line_bytes_;
  match(p, truncated ? max_line_bytes_ : n, truncated);
}

// Counts a line that holds no key without matching it.
void LineScanner::count_plain_line(size_t n) {
  line_number_++;
  lines_++;
  if (n > max_line_bytes_) truncated_lines_++;
}

// Adds bytes of the current line to the buffer, up to max_line_bytes.
void LineScanner::append(const uint8_t *p, size_t n) {
  line_open_ = line_open_ || n > 0;
  size_t room = max_line_bytes_ - line_len_;
  if (n > room) {
    line_truncated_ = true;
    n = room;
  }
  std::memcpy(line_ + line_len_, p, n);
  line_len_ += n;
}

void LineScanner::reset_line() {
  line_len_ = 0;
  line_truncated_ = false;
  line_open_ = false;
  line_cut_ = line_skipped_ = false;
}

// The line carried over from earlier chunks has ended: matched, or only
// counted when skip() passed over its start.
void LineScanner::end_carried_line() {
  if (line_skipped_)
    count_plain_line(0);
  else
    match(line_, line_len_, line_truncated_);
  reset_line();
}

// ---------------------------------------------------------------------------
// Whole lines of a chunk

// Lines of [p, end) that hold no key: counted, not matched, except those
// with an ESC byte (ANSI sequences may split a key) which are matched whole.
void LineScanner::skip_lines(const uint8_t *p, const uint8_t *end, const uint8_t *chunk) {
  const uint8_t *line = p;
  bool escape = false;
  auto special = [&](const uint8_t *at) {
    if (*at == 0x1b) {
      escape = true;
      return;
    }
    if (*at == '\n' && at == line && at > p && at[-1] == '\r') {  // second half of "\r\n"
      line = at + 1;
      return;
    }
    const size_t n = static_cast<size_t>(at - line);
    if (escape) {
      line_start_ = offset_ + static_cast<uint64_t>(line - chunk);
      match_in_place(line, n);
    } else {
      count_plain_line(n);
    }
    escape = false;
    line = at + 1;
  };
  const uint8_t *q = p;
  while (end - q >= 64) {
    // Blocks of plain '\n' breaks: counted at once. Only the line that began
    // before a block can be long enough to be cut, as lines inside a block are
    // shorter than 63 bytes (a smaller max_line_bytes: one by one below). Not
    // in a line that holds an ESC, nor on the '\n' of a "\r\n" cut by the block.
    if (!escape && max_line_bytes_ >= 63 && !(q > p && q[-1] == '\r' && q[0] == '\n')) {
      PlainBlocks plain{line};
      q = line_skip_plain_blocks(q, end, max_line_bytes_, &plain);
      line = plain.line;
      line_number_ += plain.newlines;
      lines_ += plain.newlines;
      truncated_lines_ += plain.cut_lines;
      if (end - q < 64) break;
    }
    uint64_t m = 0, nl = 0;
    line_masks64(q, &m, &nl);
    for (; m; m &= m - 1) special(q + __builtin_ctzll(m));
    q += 64;
  }
  for (; q < end; q++)
    if (line_special(*q)) special(q);
  line_start_ = offset_ + static_cast<uint64_t>(end - chunk);
}

// The first key of any pack in [p, end), or end. `long_hits` and
// `short_hits` keep each pack's last find: a hit beyond the line just
// matched stays valid for the next round, so each byte is looked at by each
// search once.
const uint8_t *LineScanner::next_key(const uint8_t *p, const uint8_t *end, const uint8_t **long_hits,
                                     const uint8_t **short_hits) const {
  const uint8_t *hit = end;
  for (uint32_t k = 0; k < lib_->layer_count(); k++) {
    const LiteralFilterView &f = lib_->layer(k).literals;
    if (!long_hits[k] || long_hits[k] < p) {
      long_hits[k] = literal_find_long(f, p, end);
      if (!long_hits[k]) long_hits[k] = end;
    }
    if (!short_hits[k] || short_hits[k] < p) {
      short_hits[k] = f.short_keys ? literal_find_short(f, p, end) : end;
      if (!short_hits[k]) short_hits[k] = end;
    }
    if (long_hits[k] < hit) hit = long_hits[k];
    if (short_hits[k] < hit) hit = short_hits[k];
  }
  return hit;
}

// Whole lines [p, end) of the chunk through the literal filters: only lines
// holding a key are matched.
void LineScanner::scan_filtered(const uint8_t *p, const uint8_t *end, const uint8_t *chunk) {
  const uint8_t *long_hits[Library::kMaxLayers] = {}, *short_hits[Library::kMaxLayers] = {};
  while (p < end) {
    const uint8_t *hit = next_key(p, end, long_hits, short_hits);
    if (hit == end) break;
    const uint8_t *line = hit;
    while (line > p && line[-1] != '\n' && line[-1] != '\r') line--;
    skip_lines(p, line, chunk);
    BreakFinder breaks(end);
    const uint8_t *brk = breaks.next(hit);  // exists: [p, end) ends with a break
    match_in_place(line, static_cast<size_t>(brk - line));
    p = after_break(brk, end);
    line_start_ = offset_ + static_cast<uint64_t>(p - chunk);
  }
  if (p < end) skip_lines(p, end, chunk);
}

// Whole lines [p, end) of the chunk, each matched (no usable filter).
void LineScanner::scan_each(const uint8_t *p, const uint8_t *end, const uint8_t *chunk) {
  BreakFinder breaks(end);
  while (p < end) {
    const uint8_t *brk = breaks.next(p);
    match_in_place(p, static_cast<size_t>(brk - p));
    p = after_break(brk, end);
    line_start_ = offset_ + static_cast<uint64_t>(p - chunk);
  }
}

// ---------------------------------------------------------------------------
// The stream

bool LineScanner::feed(const uint8_t *p, size_t len, fl_event_fn fn, void *ctx) {
  fn_ = fn;
  ctx_ = ctx;
  stopped_ = false;
  if (len == 0) return false;
  const uint8_t *const begin = p, *const end = p + len;
  p = close_carried_line(after_pending_cr(p), begin, end, true);
  // Whole lines are matched in place; what follows the last break is carried.
  const uint8_t *last = after_last_break(p, end);
  if (last > p) {
    if (filtered_)
      scan_filtered(p, last, begin);
    else
      scan_each(p, last, begin);
    line_start_ = offset_ + static_cast<uint64_t>(last - begin);
  }
  if (last < end) append(last, static_cast<size_t>(end - last));
  // A chunk ending in '\r' may be followed by the '\n' of the same break.
  if (end[-1] == '\r') pending_cr_ = true;
  offset_ += len;
  bytes_ += len;
  return stopped_;
}

// The line carried over from earlier chunks ends at the first break of
// [p, end): what precedes it is kept when `seen` (fed), or the line is marked
// cut (skipped). Returns where the chunk's own lines start.
const uint8_t *LineScanner::close_carried_line(const uint8_t *p, const uint8_t *begin, const uint8_t *end, bool seen) {
  if (!line_open_ || p >= end) return p;
  if (!seen) line_truncated_ = line_cut_ = true;  // the rest of it is not seen
  BreakFinder breaks(end);
  const uint8_t *brk = breaks.next(p);
  if (!line_cut_) append(p, static_cast<size_t>(brk - p));
  if (brk == end) return end;
  end_carried_line();
  p = after_break(brk, end);
  line_start_ = offset_ + static_cast<uint64_t>(p - begin);
  return p;
}

// After a chunk that ended in '\r', a '\n' at the start of the next one is
// the second half of the same break. Returns where the chunk's lines start.
const uint8_t *LineScanner::after_pending_cr(const uint8_t *p) {
  if (!pending_cr_) return p;
  pending_cr_ = false;
  if (*p != '\n') return p;
  line_start_ = offset_ + 1;
  return p + 1;
}

bool LineScanner::skip(const uint8_t *p, size_t len, fl_event_fn fn, void *ctx) {
  fn_ = fn;
  ctx_ = ctx;
  stopped_ = false;
  if (len == 0) return false;
  const uint8_t *const begin = p, *const end = p + len;
  p = close_carried_line(after_pending_cr(p), begin, end, false);
  const uint8_t *last = after_last_break(p, end);
  if (last > p) {
    const uint64_t n = count_breaks(p, last);
    line_number_ += n;
    lines_ += n;
    line_start_ = offset_ + static_cast<uint64_t>(last - begin);
  }
  if (last < end) line_open_ = line_cut_ = line_skipped_ = true;
  if (end[-1] == '\r') pending_cr_ = true;
  offset_ += len;
  return stopped_;
}

bool LineScanner::finish(fl_event_fn fn, void *ctx) {
  fn_ = fn;
  ctx_ = ctx;
  stopped_ = false;
  if (line_open_) end_carried_line();
  const bool stopped = stopped_;
  pending_cr_ = false;
  offset_ = line_start_ = line_number_ = earned_to_ = 0;
  return stopped;
}

}  // namespace faultline
