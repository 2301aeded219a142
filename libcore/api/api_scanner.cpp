// C API: scanners. A scanner turns a byte stream into lines ('\n', "\r\n"
// or a bare '\r' end one), keeps at most max_line_bytes of a line whatever
// the chunking, and reports each match of each line through the callback.
// Nothing here allocates after fl_scanner_create.
#include <cstring>
#include <new>

#include "api/handles.h"
#include "match/line_breaks.h"
#include "match/line_text.h"
#include "match/literal_filter.h"

using namespace faultline;

namespace {

constexpr uint32_t kDefaultMaxLineBytes = 64 * 1024;

// RAII claim of a scanner for one call: detects overlapping use.
class Claim {
 public:
  explicit Claim(fl_scanner *s) : s_(s), ok_(!s->in_use.exchange(true, std::memory_order_acquire)) {}
  ~Claim() {
    if (ok_) s_->in_use.store(false, std::memory_order_release);
  }
  bool ok() const { return ok_; }

 private:
  fl_scanner *s_;
  bool ok_;
};

struct LineContext {
  fl_scanner *s;
  const uint8_t *text;
  size_t len;
  bool truncated;
};

// Non-negative decimal of at most 18 digits, or -1.
int64_t parse_number(const char *p, size_t n) {
  if (n == 0 || n > 18) return -1;
  int64_t v = 0;
  for (size_t i = 0; i < n; i++) {
    if (p[i] < '0' || p[i] > '9') return -1;
    v = v * 10 + (p[i] - '0');
  }
  return v;
}

// A framing pattern matched: its captures fill frame fields. Launchers
// prepend their prefixes ("3: [rank5]: host:1:2 [5] NCCL ..."), so the value
// that stands later in the line, nearer the message, is the more specific
// one and wins its field (srun's task id is a node index under torchrun).
void add_frame(fl_scanner *s, const fb::Pattern *pat, const uint8_t *text, const int32_t *slots) {
  if (!slots || !pat->capture_names()) return;
  auto &f = s->frame;
  const auto *names = pat->capture_names();
  for (uint32_t g = 0; g < names->size(); g++) {
    int32_t a = slots[2 * (g + 1)], b = slots[2 * (g + 1) + 1];
    if (a < 0 || b < a) continue;
    const char *v = reinterpret_cast<const char *>(text) + a;
    size_t n = static_cast<size_t>(b - a);
    const char *name = names->Get(g)->c_str();
    static const char *const kFields[] = {"rank", "local_rank", "pid", "device", "host", "time"};
    int field = -1;
    for (int k = 0; k < 6 && field < 0; k++)
      if (!std::strcmp(name, kFields[k])) field = k;
    if (field < 0 || f.from[field] >= a) continue;  // a value at or after this one is already set
    f.from[field] = a;
    switch (field) {
      case 0: f.rank = parse_number(v, n); break;
      case 1: f.local_rank = parse_number(v, n); break;
      case 2: f.pid = parse_number(v, n); break;
      case 3: f.device = parse_number(v, n); break;
      case 4: f.host = v, f.host_len = n; break;
      default: f.time = v, f.time_len = n; break;
    }
  }
}

void on_match(void *ctx, uint32_t pattern_index, const int32_t *slots) {
  auto *c = static_cast<LineContext *>(ctx);
  fl_scanner *s = c->s;
  const PackView &pack = s->pack->view;
  const fb::Pattern *pat = pack.pattern(pattern_index);
  if (pat->entry() == kFramingEntry) {
    add_frame(s, pat, c->text, slots);
    return;
  }
  s->stats.events++;
  if (s->stopped || !s->fn) return;
  const fb::Entry *entry = pack.entry(pat->entry());
  fl_event ev;
  std::memset(&ev, 0, sizeof ev);
  ev.struct_size = sizeof ev;
  ev.flags = c->truncated ? FL_EVENT_LINE_TRUNCATED : 0u;
  ev.entry = pat->entry();
  ev.pattern_index = pattern_index;
  ev.entry_id = entry->id()->c_str();
  ev.pattern = pat->name() ? pat->name()->c_str() : "";
  ev.line_number = s->line_number;
  ev.byte_offset = s->line_start;
  ev.line = reinterpret_cast<const char *>(c->text);
  ev.line_len = c->len;
  uint32_t n = 0;
  if (slots && pat->capture_names()) {
    const auto *names = pat->capture_names();
    for (uint32_t g = 0; g < names->size() && n < s->max_captures; g++) {
      int32_t a = slots[2 * (g + 1)], b = slots[2 * (g + 1) + 1];
      if (a < 0 || b < a) continue;
      s->captures[n].name = names->Get(g)->c_str();
      s->captures[n].value = reinterpret_cast<const char *>(c->text) + a;
      s->captures[n].value_len = static_cast<size_t>(b - a);
      n++;
    }
  }
  ev.captures = n ? s->captures : nullptr;
  ev.capture_count = n;
  ev.rank = s->frame.rank;
  ev.local_rank = s->frame.local_rank;
  ev.pid = s->frame.pid;
  ev.device = s->frame.device;
  ev.host = s->frame.host;
  ev.host_len = s->frame.host ? s->frame.host_len : 0;
  ev.time = s->frame.time;
  ev.time_len = s->frame.time ? s->frame.time_len : 0;
  if (s->fn(s->ctx, &ev) != 0) s->stopped = true;
}

// Matches one complete line (already cut to max_line_bytes).
void emit_line(fl_scanner *s, const uint8_t *text, size_t len, bool truncated) {
  s->line_number++;
  s->stats.lines++;
  if (truncated) s->stats.truncated_lines++;
  if (std::memchr(text, 0x1b, len)) {
    len = strip_ansi(text, len, s->clean);
    text = s->clean;
  }
  s->frame = fl_scanner::Frame{-1, -1, -1, -1, nullptr, nullptr, 0, 0, {-1, -1, -1, -1, -1, -1}};
  LineContext c{s, text, len, truncated};
  s->matcher.match_line(text, len, on_match, &c);
}

// Adds bytes of the current line to the buffer, up to max_line_bytes.
void append(fl_scanner *s, const uint8_t *p, size_t n) {
  s->line_open = s->line_open || n > 0;
  size_t room = s->max_line_bytes - s->line_len;
  if (n > room) {
    s->line_truncated = true;
    n = room;
  }
  std::memcpy(s->line + s->line_len, p, n);
  s->line_len += n;
}

void reset_line(fl_scanner *s) {
  s->line_len = 0;
  s->line_truncated = false;
  s->line_open = false;
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

// Matches one whole line lying in the chunk, at `p`.
void emit_in_place(fl_scanner *s, const uint8_t *p, size_t n) {
  const bool truncated = n > s->max_line_bytes;
  emit_line(s, p, truncated ? s->max_line_bytes : n, truncated);
}

// Past the break at `brk` ("\r\n" is one break); [p, end) holds whole lines.
const uint8_t *after_break(const uint8_t *brk, const uint8_t *end) {
  return *brk == '\r' && brk + 1 < end && brk[1] == '\n' ? brk + 2 : brk + 1;
}

// Set bits of v (SWAR: no popcnt instruction in baseline x86-64, no libgcc call).
inline uint64_t count_bits64(uint64_t v) {
  v = v - ((v >> 1) & 0x5555555555555555ull);
  v = (v & 0x3333333333333333ull) + ((v >> 2) & 0x3333333333333333ull);
  v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return (v * 0x0101010101010101ull) >> 56;
}

// Lines of [p, end) that hold no key: counted, not matched, except those
// with an ESC byte (ANSI sequences may split a key) which are matched whole.
void skip_lines(fl_scanner *s, const uint8_t *p, const uint8_t *end, const uint8_t *chunk) {
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
      s->line_start = s->offset + static_cast<uint64_t>(line - chunk);
      emit_in_place(s, line, n);
    } else {
      s->line_number++;
      s->stats.lines++;
      if (n > s->max_line_bytes) s->stats.truncated_lines++;
    }
    escape = false;
    line = at + 1;
  };
  const uint8_t *q = p;
  for (; end - q >= 64; q += 64) {
    uint64_t m = 0, nl = 0;
    line_masks64(q, &m, &nl);
    // A block of plain '\n' breaks: count them at once. Only the line that
    // began before the block can be long enough to be cut, as lines inside a
    // block are shorter than 63 bytes (a smaller max_line_bytes: one by one below).
    if (m && !escape && s->max_line_bytes >= 63) {
      if (nl == m && !(q > p && q[-1] == '\r' && q[0] == '\n')) {
        const uint8_t *first = q + __builtin_ctzll(m), *last_nl = q + 63 - __builtin_clzll(m);
        const uint64_t n = count_bits64(m);
        if (static_cast<size_t>(first - line) > s->max_line_bytes) s->stats.truncated_lines++;
        s->line_number += n;
        s->stats.lines += n;
        line = last_nl + 1;
        continue;
      }
    }
    for (; m; m &= m - 1) special(q + __builtin_ctzll(m));
  }
  for (; q < end; q++)
    if (line_special(*q)) special(q);
  s->line_start = s->offset + static_cast<uint64_t>(end - chunk);
}

// Whole lines [p, end) of the chunk through the literal filter: only lines
// holding a key are matched. Each byte is looked at by each search once: a
// hit beyond the line just matched stays valid for the next round.
void scan_filtered(fl_scanner *s, const uint8_t *p, const uint8_t *end, const uint8_t *chunk) {
  const LiteralFilterView &f = s->pack->view.literals;
  const uint8_t *long_hit = nullptr, *short_hit = f.short_keys ? nullptr : end;
  while (p < end) {
    if (!long_hit || long_hit < p) {
      long_hit = literal_find_long(f, p, end);
      if (!long_hit) long_hit = end;
    }
    if (!short_hit || short_hit < p) {
      short_hit = literal_find_short(f, p, end);
      if (!short_hit) short_hit = end;
    }
    const uint8_t *hit = long_hit < short_hit ? long_hit : short_hit;
    if (hit == end) break;
    const uint8_t *line = hit;
    while (line > p && line[-1] != '\n' && line[-1] != '\r') line--;
    skip_lines(s, p, line, chunk);
    BreakFinder breaks(end);
    const uint8_t *brk = breaks.next(hit);  // exists: [p, end) ends with a break
    emit_in_place(s, line, static_cast<size_t>(brk - line));
    p = after_break(brk, end);
    s->line_start = s->offset + static_cast<uint64_t>(p - chunk);
  }
  if (p < end) skip_lines(s, p, end, chunk);
}

// Whole lines [p, end) of the chunk, each matched (no usable filter).
void scan_each(fl_scanner *s, const uint8_t *p, const uint8_t *end, const uint8_t *chunk) {
  BreakFinder breaks(end);
  while (p < end) {
    const uint8_t *brk = breaks.next(p);
    emit_in_place(s, p, static_cast<size_t>(brk - p));
    p = after_break(brk, end);
    s->line_start = s->offset + static_cast<uint64_t>(p - chunk);
  }
}

void feed(fl_scanner *s, const uint8_t *p, size_t len) {
  const uint8_t *const begin = p, *const end = p + len;
  if (s->pending_cr && p < end) {
    s->pending_cr = false;
    if (*p == '\n') {  // the second half of a "\r\n" split across chunks
      p++;
      s->line_start = s->offset + 1;
    }
  }
  // The line carried over from earlier chunks ends at the first break.
  if (s->line_open && p < end) {
    BreakFinder breaks(end);
    const uint8_t *brk = breaks.next(p);
    append(s, p, static_cast<size_t>(brk - p));
    if (brk == end) p = end;
    else {
      emit_line(s, s->line, s->line_len, s->line_truncated);
      reset_line(s);
      p = after_break(brk, end);
      s->line_start = s->offset + static_cast<uint64_t>(p - begin);
    }
  }
  // Whole lines are matched in place; what follows the last break is carried.
  const uint8_t *last = end;
  while (last > p && last[-1] != '\n' && last[-1] != '\r') last--;
  if (last > p) {
    if (s->pack->view.literals.usable) scan_filtered(s, p, last, begin);
    else scan_each(s, p, last, begin);
    s->line_start = s->offset + static_cast<uint64_t>(last - begin);
  }
  if (last < end) append(s, last, static_cast<size_t>(end - last));
  // A chunk ending in '\r' may be followed by the '\n' of the same break.
  if (end[-1] == '\r') s->pending_cr = true;
  s->offset += len;
  s->stats.bytes += len;
}

}  // namespace

extern "C" {

fl_status fl_scanner_options_init(fl_scanner_options *opts, size_t size) {
  if (!opts || size < sizeof(fl_scanner_options)) return FL_E_INVALID_ARG;
  std::memset(opts, 0, size);
  opts->struct_size = static_cast<uint32_t>(sizeof(fl_scanner_options));
  return FL_OK;
}

fl_status fl_scanner_create(const fl_pack *pack, const fl_scanner_options *opts, fl_scanner **out) {
  if (!out) return FL_E_INVALID_ARG;
  *out = nullptr;
  if (!pack) return FL_E_INVALID_ARG;
  fl_scanner_options o = FL_SCANNER_OPTIONS_INIT;
  if (opts) {
    if (opts->struct_size < offsetof(fl_scanner_options, allocator)) return FL_E_INVALID_ARG;
    if (opts->struct_size > sizeof o) {
      const uint8_t *tail = reinterpret_cast<const uint8_t *>(opts) + sizeof o;
      for (size_t i = 0; i < opts->struct_size - sizeof o; i++)
        if (tail[i]) return FL_E_INVALID_ARG;
    }
    std::memcpy(&o, opts, opts->struct_size < sizeof o ? opts->struct_size : sizeof o);
  }
  Allocator alloc = Allocator::from(o.allocator);
  void *mem = alloc.allocate(sizeof(fl_scanner));
  if (!mem) return FL_E_NOMEM;
  fl_scanner *s = new (mem) fl_scanner;
  s->pack = pack;
  s->alloc = alloc;
  s->max_line_bytes = o.max_line_bytes ? o.max_line_bytes : kDefaultMaxLineBytes;
  s->max_captures = pack->view.root->max_slot_count() / 2;
  s->line = static_cast<uint8_t *>(alloc.allocate(s->max_line_bytes));
  s->clean = static_cast<uint8_t *>(alloc.allocate(s->max_line_bytes));
  s->captures = static_cast<fl_capture *>(alloc.allocate_zeroed(s->max_captures ? s->max_captures : 1, sizeof(fl_capture)));
  if (!s->line || !s->clean || !s->captures || s->matcher.create(&pack->view, alloc) != Status::kOk) {
    fl_scanner_free(s);
    return FL_E_NOMEM;
  }
  s->stats.struct_size = sizeof s->stats;
  *out = s;
  return FL_OK;
}

fl_status fl_scanner_feed(fl_scanner *scanner, const void *bytes, size_t len, fl_event_fn fn, void *ctx) {
  if (!scanner || (!bytes && len)) return FL_E_INVALID_ARG;
  Claim claim(scanner);
  if (!claim.ok()) return FL_E_SCANNER_IN_USE;
  scanner->errmsg[0] = '\0';
  scanner->fn = fn;
  scanner->ctx = ctx;
  scanner->stopped = false;
  if (len) feed(scanner, static_cast<const uint8_t *>(bytes), len);
  return scanner->stopped ? FL_E_STOPPED : FL_OK;
}

fl_status fl_scanner_finish(fl_scanner *scanner, fl_event_fn fn, void *ctx) {
  if (!scanner) return FL_E_INVALID_ARG;
  Claim claim(scanner);
  if (!claim.ok()) return FL_E_SCANNER_IN_USE;
  scanner->fn = fn;
  scanner->ctx = ctx;
  scanner->stopped = false;
  if (scanner->line_open) emit_line(scanner, scanner->line, scanner->line_len, scanner->line_truncated);
  bool stopped = scanner->stopped;
  reset_line(scanner);
  scanner->pending_cr = false;
  scanner->offset = scanner->line_start = scanner->line_number = 0;
  return stopped ? FL_E_STOPPED : FL_OK;
}

fl_status fl_scanner_get_stats(const fl_scanner *scanner, fl_scanner_stats *stats) {
  // Callers built against an older header pass a shorter struct: fill what it has.
  if (!scanner || !stats || stats->struct_size < offsetof(fl_scanner_stats, candidate_lines)) return FL_E_INVALID_ARG;
  const uint32_t size = stats->struct_size < sizeof(fl_scanner_stats) ? stats->struct_size : sizeof(fl_scanner_stats);
  fl_scanner_stats now = scanner->stats;
  now.struct_size = size;
  now.candidate_lines = scanner->matcher.candidate_lines();
  std::memcpy(stats, &now, size);
  return FL_OK;
}

const char *fl_scanner_errmsg(const fl_scanner *scanner) { return scanner ? scanner->errmsg : ""; }

void fl_scanner_free(fl_scanner *scanner) {
  if (!scanner) return;
  Allocator alloc = scanner->alloc;
  alloc.release(scanner->line);
  alloc.release(scanner->clean);
  alloc.release(scanner->captures);
  scanner->~fl_scanner();
  alloc.release(scanner);
}

}  // extern "C"
