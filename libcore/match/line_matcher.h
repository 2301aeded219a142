// Matching one line against every pattern of a pack: the DFAs run over the
// line and mark the pieces they see; a pattern whose pieces were all seen is
// confirmed (and its captures extracted) by its program. Everything the
// matcher needs is allocated in create(); match_line() allocates nothing.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/alloc.h"
#include "common/limits.h"
#include "match/pack_reader.h"

namespace faultline {

class LineMatcher {
 public:
  // Called once per pattern that matches the line: framing patterns first
  // (only on lines where some entry pattern matches), prefixes in the order
  // they stand in the line. `slots` holds the capture
  // offsets (2 per group, group 0 = whole match, -1 = unset) and is valid only
  // during the call; it is NULL for entry patterns without captures, which
  // a DFA decides alone.
  using OnMatch = void (*)(void *ctx, uint32_t pattern, const int32_t *slots);

  LineMatcher() = default;
  ~LineMatcher();
  LineMatcher(const LineMatcher &) = delete;
  LineMatcher &operator=(const LineMatcher &) = delete;

  // Sizes the working memory from the pack. Returns kNoMem on failure. The
  // pack view must outlive the matcher.
  Status create(const PackView *pack, const Allocator &alloc = Allocator{});

  // Matches one line (without its '\n'). Returns the number of matches.
  // `frame_always` confirms framing patterns even when no entry matches
  // (flc uses it to test framing examples).
  uint32_t match_line(const uint8_t *line, size_t len, OnMatch on_match, void *ctx, bool frame_always = false);

  // Only the line's framing patterns (its prefixes), whatever entries it
  // holds: a stack of packs frames a line with every pack's formats before
  // any pack reports its events (LineScanner). Returns the number of matches.
  uint32_t frame_line(const uint8_t *line, size_t len, OnMatch on_match, void *ctx);

  // Where the message of the line last matched begins: past every framing
  // prefix peeled off its front (0 when none).
  uint32_t message_start() const { return message_start_; }
  // Whether those prefixes include a logger header below error level
  // (framing capture `level`): anchored entry patterns do not read behind it.
  bool quiet_header() const { return quiet_header_; }

  // Lines that passed the literal filter (or all, without one) and ran the DFAs.
  uint64_t candidate_lines() const { return candidate_lines_; }

  // The work budget (limits.h: FL_MATCH_WORK_PER_BYTE, FL_MATCH_WORK_RESERVE):
  // off until use_work_budget(); then `earn` credits the stream's bytes, and a
  // line whose DFAs and confirmations would spend more than is saved up stops
  // matching there (what matched before is reported) and is counted.
  void use_work_budget(int64_t per_byte = FL_MATCH_WORK_PER_BYTE, int64_t reserve = FL_MATCH_WORK_RESERVE);
  void earn(uint64_t bytes);
  uint64_t over_budget_lines() const { return over_budget_lines_; }
  // Units spent since use_work_budget() (tests check the bound with it).
  int64_t work_spent() const { return reserve_ + earned_ - work_left_; }

 private:
  const PackView *pack_ = nullptr;
  Allocator alloc_;
  uint32_t *seen_ = nullptr;       // per pattern: bits of pieces seen on this line
  uint32_t *full_mask_ = nullptr;  // per pattern: all piece bits
  uint32_t *touched_ = nullptr;    // patterns whose seen_ is non-zero
  uint32_t touched_count_ = 0;
  uint32_t *complete_ = nullptr;  // patterns whose pieces were all seen, in order
  uint32_t complete_count_ = 0;
  int32_t *slots_ = nullptr;
  int32_t *level_group_ = nullptr;  // per pattern: its `level` capture group, -1 = none
  DfaView *whole_ = nullptr;        // per pattern: its confirmation DFA (state_count 0 = none)
  // Per pattern: a '^' inside it, in one of its alternatives ("(?:NCCL WARN |^)Cuda failure"),
  // which holds behind the line's prefixes too: such a pattern is tried again at the message start.
  uint8_t *start_inside_ = nullptr;
  bool quiet_header_ = false;  // the line's prefixes include a logger header below error level
  void *vm_scratch_ = nullptr;
  uint64_t candidate_lines_ = 0;
  uint32_t message_start_ = 0;

  bool budgeted_ = false;
  int64_t per_byte_ = 0, reserve_ = 0;
  int64_t earned_ = 0;        // units credited by earn(), after the cap
  int64_t work_left_ = 0;     // units saved up (budgeted_ only)
  bool out_of_work_ = false;  // the line being matched spent them
  uint64_t over_budget_lines_ = 0;
  uint32_t keys_found_ = 0;               // on the line, by the literal filter
  static constexpr int64_t kKeyWork = 8;  // finding and verifying a key: about 8 DFA steps (callgrind)
  // The key search reads the whole candidate line, hashing and probing at
  // every stride: about 2 DFA steps a byte on key-dense lines (callgrind).
  static constexpr int64_t kKeySearchWorkPerByte = 2;
  bool afford(size_t len);  // spends a DFA run over len bytes, or says the line is out of work
  int64_t *work() { return budgeted_ ? &work_left_ : nullptr; }

  // The DFAs to run on this line, from the keys it holds (deduplicated by
  // stamping each DFA with the line's serial number).
  uint32_t *dfa_stamp_ = nullptr;
  uint32_t *dfa_list_ = nullptr;
  uint32_t dfa_list_count_ = 0;
  uint32_t line_serial_ = 0;

  void mark_dfa(uint32_t d);
  static void on_key(void *self, const fb::LiteralKey *key);
  void run_dfa(uint32_t d, const uint8_t *line, size_t len);
  bool confirm(const ProgramView &prog, const uint8_t *line, size_t len, uint32_t at);
  bool match_entry_at(uint32_t p, const uint8_t *line, size_t len, uint32_t at, OnMatch on_match, void *ctx);
  uint32_t match_within_budget(const uint8_t *line, size_t len, OnMatch on_match, void *ctx, bool frame_always);
  uint32_t peel_prefixes(const uint8_t *line, size_t len, OnMatch on_match, void *ctx);
};

}  // namespace faultline
