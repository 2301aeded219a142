// Collectives issued in different orders, read from the watchdogs' reports.
//
// PyTorch numbers the collectives of a process group (SeqNum) in the order a
// rank issues them, the same on every rank when the code is right. When the
// watchdogs of two ranks time out on the same SeqNum in different operations
// ("SeqNum=4084, OpType=ALLREDUCE" on ranks 1 and 2, "OpType=BROADCAST" on
// rank 3), the ranks' code paths diverged: a collective mismatch, not a slow
// or dead peer. No single line says it; this adds the group the diagnosis
// names it by, on the line of the rank whose operation is the odd one out.
#include <cstdio>
#include <cstring>

#include "common/limits.h"
#include "common/vocabulary.h"
#include "diagnose/evidence.h"
#include "match/pack_reader.h"

namespace faultline {

namespace {

constexpr size_t kMaxOps = 8;  // distinct operations compared at one SeqNum

struct OpCount {
  const Progress *first = nullptr;  // a rank in this operation
  size_t ranks = 0;
};

}  // namespace

void Evidence::infer_collective_order(const Library &pack) {
  uint32_t entry = kNoEntry;
  for (uint32_t i = 0; i < pack.entry_count() && entry == kNoEntry; i++)
    if (entry_has_tag(pack.entry(i), kTagCollectiveOrder)) entry = i;
  if (entry == kNoEntry) return;
  // A group of the entry from a line of the logs: the logs say it. Groups
  // inferred at an earlier report (or in a merged partial) are inferred
  // again from all the evidence: the logs may have said more since.
  const char kPattern[] = "timeouts_in_different_operations";
  bool stated = false;
  for (size_t i = groups.size(); i-- > 0;)
    if (groups[i].entry == entry) {
      if (str_eq(groups[i].first_pattern, kPattern, sizeof kPattern - 1))
        drop_group(static_cast<uint32_t>(i));
      else
        stated = true;
    }
  if (stated) return;

  // The first SeqNum at which ranks timed out in different operations.
  int64_t seq = -1;
  for (const Progress &p : progress) {
    if (p.rank < 0 || p.timeout_seq < 0 || p.op_type.len == 0 || (seq >= 0 && p.timeout_seq >= seq)) continue;
    for (const Progress &q : progress)
      if (q.rank >= 0 && q.rank != p.rank && q.timeout_seq == p.timeout_seq && q.op_type.len &&
          !str_eq(q.op_type, str(p.op_type), p.op_type.len)) {
        seq = p.timeout_seq;
        break;
      }
  }
  if (seq < 0) return;

  OpCount ops[kMaxOps];
  size_t nops = 0;
  for (const Progress &p : progress) {
    if (p.rank < 0 || p.timeout_seq != seq || p.op_type.len == 0) continue;
    size_t k = 0;
    while (k < nops && !str_eq(ops[k].first->op_type, str(p.op_type), p.op_type.len)) k++;
    if (k == nops) {
      if (nops == kMaxOps) continue;
      ops[nops++].first = &p;
    }
    ops[k].ranks++;
  }
  // The odd one out: the only rank in an operation no other rank is in,
  // while every other operation has two ranks or more. Otherwise (two ranks,
  // one in each) nothing says which side diverged: the earliest report.
  const Progress *odd = nullptr;
  size_t alone = 0;
  for (size_t k = 0; k < nops; k++)
    if (ops[k].ranks == 1) alone++, odd = ops[k].first;
  if (alone != 1) odd = nullptr;

  // The odd rank's own timeout line, or the earliest timeout at that SeqNum.
  const Group *at = nullptr;
  for (const Group &g : groups) {
    if (g.entry == kNoEntry || g.entry == entry || group_field_number(*this, g, capture::kTimeoutSeq) != seq) continue;
    if (odd && (g.source != odd->source || g.rank != odd->rank)) continue;
    if (!at || g.source < at->source || (g.source == at->source && g.first_line < at->first_line)) at = &g;
  }
  if (!at) return;
  const Group model = *at;  // find_group may move the groups
  const int64_t rank = odd ? model.rank : -1;

  // The SeqNum, and the operations in the order of the (canonical) evidence.
  // The operations' names are in the pool itself: room first, so that
  // adding them cannot move them.
  size_t need = 64;
  for (size_t k = 0; k < nops; k++) need += ops[k].first->op_type.len + 3;
  if (!pool_.reserve(pool_.size() + need)) return;
  const size_t at_fields = pool_.size();
  char number[24];
  const int n = std::snprintf(number, sizeof number, "%lld", static_cast<long long>(seq));
  pool_.add("seq", 3), pool_.addc('\0'), pool_.add(number, static_cast<size_t>(n)), pool_.addc('\0');
  pool_.add("op_types", 8), pool_.addc('\0');
  for (size_t k = 0; k < nops; k++) {
    if (k) pool_.add(" / ", 3);
    pool_.add(str(ops[k].first->op_type), ops[k].first->op_type.len);
  }
  pool_.addc('\0');
  if (pool_.failed()) return;
  const Str fields{static_cast<uint32_t>(at_fields), static_cast<uint32_t>(pool_.size() - at_fields)};

  const flatbuffers::String *id = pack.entry(entry)->id();
  const Str id_str = intern(id->c_str(), id->size());
  char host[kMaxFieldBytes];  // a copy: interning may move the pool it lies in
  const size_t host_len = model.host.len < sizeof host ? model.host.len : sizeof host;
  std::memcpy(host, str(model.host), host_len);
  const uint32_t gi = find_group(model.source, entry, id_str, rank, host, host_len, true);
  if (gi == kNoEntry) return;
  Group &g = groups[gi];
  g.count = 1;
  g.pattern_mask = 1;
  g.first_line = g.last_line = model.first_line;
  g.first_time = model.first_time;
  g.first_text = model.first_text;
  g.truncated = model.truncated;
  if (odd) {  // the odd rank's own line: its clues to the rank are this group's
    g.rank_from = model.rank_from;
    g.pid = model.pid, g.device = model.device, g.local_rank = model.local_rank;
  }
  g.first_pattern = intern(kPattern, sizeof kPattern - 1);
  g.fields = fields;
}

void Evidence::drop_group(uint32_t gi) {
  if (gi >= groups.size()) return;
  const Group &g = groups[gi];
  pool_garbage_ += g.entry_id.len + g.host.len + g.first_pattern.len + g.fields.len + 4;
  groups.erase(gi);
  rehash();
  if (pool_garbage_ > kPoolSlackBytes && pool_garbage_ * 2 > pool_.size()) compact_pool();
}

}  // namespace faultline
