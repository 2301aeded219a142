#include "match/line_matcher.h"

#include <cstdlib>
#include <cstring>

#include "common/vocabulary.h"
#include "match/literal_filter.h"

namespace faultline {

LineMatcher::~LineMatcher() {
  alloc_.release(seen_);
  alloc_.release(full_mask_);
  alloc_.release(touched_);
  alloc_.release(complete_);
  alloc_.release(slots_);
  alloc_.release(vm_scratch_);
  alloc_.release(dfa_stamp_);
  alloc_.release(dfa_list_);
  alloc_.release(level_group_);
  alloc_.release(whole_);
  alloc_.release(start_inside_);
}

Status LineMatcher::create(const PackView *pack, const Allocator &alloc) {
  pack_ = pack;
  alloc_ = alloc;
  const uint32_t n = pack->pattern_count();
  const size_t words = n ? n : 1;
  seen_ = static_cast<uint32_t *>(alloc_.allocate_zeroed(words, sizeof(uint32_t)));
  full_mask_ = static_cast<uint32_t *>(alloc_.allocate_zeroed(words, sizeof(uint32_t)));
  touched_ = static_cast<uint32_t *>(alloc_.allocate_zeroed(words, sizeof(uint32_t)));
  complete_ = static_cast<uint32_t *>(alloc_.allocate_zeroed(words, sizeof(uint32_t)));
  const uint32_t max_slots = pack->root->max_slot_count() ? pack->root->max_slot_count() : 2;
  slots_ = static_cast<int32_t *>(alloc_.allocate_zeroed(max_slots, sizeof(int32_t)));
  // Zeroed once: the VM's sparse sets tolerate stale contents but must not
  // read uninitialised memory.
  const uint32_t max_insns = pack->root->max_program_insns() ? pack->root->max_program_insns() : 1;
  vm_scratch_ = alloc_.allocate_zeroed(1, pike_scratch_bytes(max_insns, max_slots));
  const size_t dfas = pack->dfa_count() ? pack->dfa_count() : 1;
  dfa_stamp_ = static_cast<uint32_t *>(alloc_.allocate_zeroed(dfas, sizeof(uint32_t)));
  dfa_list_ = static_cast<uint32_t *>(alloc_.allocate_zeroed(dfas, sizeof(uint32_t)));
  level_group_ = static_cast<int32_t *>(alloc_.allocate_zeroed(words, sizeof(int32_t)));
  whole_ = static_cast<DfaView *>(alloc_.allocate_zeroed(words, sizeof(DfaView)));
  start_inside_ = static_cast<uint8_t *>(alloc_.allocate_zeroed(words, 1));
  if (!seen_ || !full_mask_ || !touched_ || !complete_ || !slots_ || !vm_scratch_ || !dfa_stamp_ || !dfa_list_ || !level_group_ ||
      !whole_ || !start_inside_)
    return Status::kNoMem;
  for (uint32_t i = 0; i < n; i++) {
    const fb::Pattern *pat = pack->pattern(i);
    uint32_t pieces = pat->piece_count();
    full_mask_[i] = pieces >= 32 ? 0xffffffffu : (1u << pieces) - 1;
    level_group_[i] = -1;
    if (!pack->confirm_dfa(i, &whole_[i])) whole_[i] = DfaView{};
    start_inside_[i] = program_starts_inside(pack->program(i));
    if (pat->entry() != kFramingEntry || !pat->capture_names()) continue;
    for (uint32_t g = 0; g < pat->capture_names()->size(); g++)
      if (std::strcmp(pat->capture_names()->Get(g)->c_str(), kFramingLevel) == 0 && 2 * (g + 1) + 1 < pat->slot_count())
        level_group_[i] = static_cast<int32_t>(g + 1);
  }
  return Status::kOk;
}

void LineMatcher::use_work_budget(int64_t per_byte, int64_t reserve) {
  budgeted_ = true;
  per_byte_ = per_byte;
  reserve_ = work_left_ = reserve;
  earned_ = 0;
}

// Saturating: a long stretch of plain lines fills the bucket, never beyond.
void LineMatcher::earn(uint64_t bytes) {
  const int64_t missing = reserve_ - work_left_;  // work_left_ may be a little below 0
  const int64_t credit = bytes > static_cast<uint64_t>(missing / per_byte_) ? missing : static_cast<int64_t>(bytes) * per_byte_;
  work_left_ += credit;
  earned_ += credit;
}

bool LineMatcher::afford(size_t len) {
  if (!budgeted_) return true;
  const int64_t cost = static_cast<int64_t>(len) + 1;
  if (out_of_work_ || work_left_ < cost) {
    out_of_work_ = true;
    return false;
  }
  work_left_ -= cost;
  return true;
}

void LineMatcher::mark_dfa(uint32_t d) {
  if (dfa_stamp_[d] == line_serial_) return;
  dfa_stamp_[d] = line_serial_;
  // Kept in ascending order (the lists are short): events come out in the
  // same order whatever order the keys were found in.
  uint32_t i = dfa_list_count_++;
  for (; i > 0 && dfa_list_[i - 1] > d; i--) dfa_list_[i] = dfa_list_[i - 1];
  dfa_list_[i] = d;
}

void LineMatcher::on_key(void *self, const fb::LiteralKey *key) {
  auto *m = static_cast<LineMatcher *>(self);
  m->keys_found_++;
  if (key->dfas())
    for (uint32_t d : *key->dfas()) m->mark_dfa(d);
}

void LineMatcher::run_dfa(uint32_t d, const uint8_t *line, size_t len) {
  const auto *pieces = pack_->root->pieces();
  DfaView dfa = pack_->dfa(d);
  dfa_run(dfa, line, len, [&](uint32_t state) {
    for (const uint32_t *a = dfa.accepts_begin(state); a != dfa.accepts_end(state); ++a) {
      const fb::Piece *piece = pieces->Get(*a);
      uint32_t p = piece->pattern();
      uint32_t before = seen_[p];
      uint32_t after = before | (1u << piece->bit());
      if (after == before) continue;
      if (before == 0) touched_[touched_count_++] = p;
      seen_[p] = after;
      if (after == full_mask_[p]) complete_[complete_count_++] = p;
    }
  });
}

// Runs `prog` on the line from offset `at` (treated as the line start);
// the slots come back as offsets in the whole line.
bool LineMatcher::confirm(const ProgramView &prog, const uint8_t *line, size_t len, uint32_t at) {
  if (out_of_work_ || !pike_match(prog, line + at, len - at, vm_scratch_, slots_, work(), &out_of_work_)) return false;
  if (at)
    for (uint32_t s = 0; s < prog.slot_count; s++)
      if (slots_[s] >= 0) slots_[s] += static_cast<int32_t>(at);
  return true;
}

// Framing patterns, before any entry pattern, so that the line's frame is
// known when its events are reported. Launchers, shells and log collectors
// stack their prefixes in any order ("2025-01-02 03:04:05 [rank5]: ...",
// "trainer-1  | 3: ..."), and each framing file describes only its own: a
// pattern anchored at the line start is tried again where the prefixes seen
// so far end, until none matches there (the same format may stand twice:
// a collector's timestamp before the application's). Unanchored patterns
// (NCCL's "host:pid:tid [dev]") run once, anywhere in the line.
uint32_t LineMatcher::peel_prefixes(const uint8_t *line, size_t len, OnMatch on_match, void *ctx) {
  uint32_t matches = 0;
  uint32_t at = 0;
  for (uint32_t round = 1; round <= kMaxStackedPrefixes; round++) {
    uint32_t next = at;
    for (uint32_t i = 0; i < complete_count_; i++) {
      const uint32_t p = complete_[i];
      if (pack_->pattern(p)->entry() != kFramingEntry) continue;
      ProgramView prog = pack_->program(p);
      const bool anchored = program_anchored(prog);
      if (round > 1 && !anchored) continue;
      if (!confirm(prog, line, len, anchored ? at : 0)) continue;
      matches++;
      if (level_group_[p] > 0) {
        // Info, warning, debug, verbose, trace: a record the program logged.
        const int32_t a = slots_[2 * level_group_[p]];
        if (a >= 0 && static_cast<size_t>(a) < len && line[a] && std::strchr("IWDVT", line[a])) quiet_header_ = true;
      }
      on_match(ctx, p, slots_);
      if (anchored && static_cast<uint32_t>(slots_[1]) > next) next = static_cast<uint32_t>(slots_[1]);
    }
    if (next == at) break;
    // The blanks between two prefixes belong to neither.
    while (next < len && (line[next] == ' ' || line[next] == '\t')) next++;
    at = next;
  }
  message_start_ = at;
  return matches;
}

uint32_t LineMatcher::match_line(const uint8_t *line, size_t len, OnMatch on_match, void *ctx, bool frame_always) {
  touched_count_ = 0;
  complete_count_ = 0;
  message_start_ = 0;
  quiet_header_ = false;
  out_of_work_ = false;
  const uint32_t matches = match_within_budget(line, len, on_match, ctx, frame_always);
  if (out_of_work_) over_budget_lines_++;
  return matches;
}

uint32_t LineMatcher::frame_line(const uint8_t *line, size_t len, OnMatch on_match, void *ctx) {
  touched_count_ = 0;
  complete_count_ = 0;
  message_start_ = 0;
  quiet_header_ = false;
  out_of_work_ = false;
  const LiteralFilterView &lf = pack_->literals;
  if (lf.usable) {
    if (lf.framing_dfas)
      for (uint32_t d : *lf.framing_dfas)
        if (afford(len)) run_dfa(d, line, len);
  } else {
    for (uint32_t d = 0; d < pack_->dfa_count() && afford(len); d++) run_dfa(d, line, len);
  }
  for (uint32_t i = 0; i < touched_count_; i++) seen_[touched_[i]] = 0;
  const uint32_t matches = peel_prefixes(line, len, on_match, ctx);
  if (out_of_work_) over_budget_lines_++;
  return matches;
}

uint32_t LineMatcher::match_within_budget(const uint8_t *line, size_t len, OnMatch on_match, void *ctx, bool frame_always) {
  const LiteralFilterView &lf = pack_->literals;
  if (lf.usable && !frame_always) {
    // Only the DFAs of the keys this line holds; most lines hold none.
    if (++line_serial_ == 0) {
      for (uint32_t d = 0; d < pack_->dfa_count(); d++) dfa_stamp_[d] = 0;
      line_serial_ = 1;
    }
    dfa_list_count_ = 0;
    if (budgeted_) {  // not even the keys when the bucket cannot pay for reading the line
      const int64_t search = kKeySearchWorkPerByte * static_cast<int64_t>(len);
      if (work_left_ < search) {
        out_of_work_ = true;
        return 0;
      }
      work_left_ -= search;
    }
    keys_found_ = 0;
    literal_each_key(lf, line, line + len, on_key, this);
    if (budgeted_) work_left_ -= static_cast<int64_t>(keys_found_) * kKeyWork;
    if (dfa_list_count_ == 0) return 0;
    candidate_lines_++;
    for (uint32_t i = 0; i < dfa_list_count_ && afford(len); i++) run_dfa(dfa_list_[i], line, len);
    // The line's frame matters only when some entry pattern may match.
    bool any_entry = false;
    for (uint32_t i = 0; i < complete_count_ && !any_entry; i++)
      any_entry = pack_->pattern(complete_[i])->entry() != kFramingEntry;
    if (any_entry && lf.framing_dfas)
      for (uint32_t d : *lf.framing_dfas)
        if (afford(len)) run_dfa(d, line, len);
  } else {
    candidate_lines_++;
    for (uint32_t d = 0; d < pack_->dfa_count() && afford(len); d++) run_dfa(d, line, len);
  }
  for (uint32_t i = 0; i < touched_count_; i++) seen_[touched_[i]] = 0;

  // Framing patterns (log prefixes) are confirmed only on lines where some
  // entry pattern is a candidate, and before them, so that a line's frame is
  // known when its events are reported.
  bool any_entry = false;
  for (uint32_t i = 0; i < complete_count_ && !any_entry; i++) any_entry = pack_->pattern(complete_[i])->entry() != kFramingEntry;
  if (!any_entry && !frame_always) return 0;
  uint32_t matches = peel_prefixes(line, len, on_match, ctx);
  for (uint32_t i = 0; i < complete_count_; i++) {
    uint32_t p = complete_[i];
    const fb::Pattern *pat = pack_->pattern(p);
    if (pat->entry() == kFramingEntry) continue;
    if (pat->exact() && pat->slot_count() == 2) {
      matches++;
      on_match(ctx, p, nullptr);
      continue;
    }
    // A pattern anchored at the line start reads the message behind the
    // prefixes: "^Killed" holds behind "[rank3]: " or a timestamp too; so does
    // a '^' in one of a pattern's alternatives, tried when the whole line fails.
    const bool anchored = program_anchored(pack_->program(p));
    if (anchored && quiet_header_) continue;
    if (match_entry_at(p, line, len, anchored ? message_start_ : 0, on_match, ctx) ||
        (start_inside_[p] && message_start_ > 0 && !quiet_header_ && match_entry_at(p, line, len, message_start_, on_match, ctx)))
      matches++;
  }
  return matches;
}

// One entry pattern on the line from offset `at`, read as the line start.
bool LineMatcher::match_entry_at(uint32_t p, const uint8_t *line, size_t len, uint32_t at, OnMatch on_match, void *ctx) {
  // The whole-pattern DFA first: most candidates that reach here do not
  // match, and it decides them in one step a byte; the program runs only
  // for the captures of a line that matches.
  const DfaView &whole = whole_[p];
  if (whole.state_count) {
    if (!afford(len - at) || !dfa_decides(whole, line + at, len - at)) return false;
    if (pack_->pattern(p)->slot_count() == 2) {
      on_match(ctx, p, nullptr);
      return true;
    }
  }
  if (!confirm(pack_->program(p), line, len, at)) return false;
  on_match(ctx, p, slots_);
  return true;
}

}  // namespace faultline
