// Serialized evidence ("partial report"): what one node or one log file
// contributes to a job's diagnosis, merged later by fl_diagnoser_merge_partial.
//
// Format 6, little-endian (format 1 lacked rank provenance and worker exits,
// format 2 the kinds of fatal ends and the lines where a source completed,
// format 3 the stated node count, format 4 the operation a rank timed out in,
// format 5 the traceback context of an exception and the rank of an agent's only worker):
//   "FLPARTL1"  u32 format (6)  u32 reserved (0)  u64 payload bytes  u64 XXH64(payload)
//   payload: u64 dropped events, i64 world size, i64 node count, u8 device shared and i64 x kDeviceSlots first pid
//   per device index, the string pool, then sources, groups, hints,
//   progress, candidates, pid ranks and worker exits, each as u32 count + fixed-size records whose
//   strings are (offset, length) into the pool. Every string and index is
//   checked on reading; a partial is untrusted input.
#include <cstring>

#include "common/hash.h"
#include "diagnose/evidence.h"

namespace faultline {

namespace {

constexpr char kMagic[8] = {'F', 'L', 'P', 'A', 'R', 'T', 'L', '1'};
constexpr uint32_t kFormat = 6;
constexpr size_t kHeader = 32;

struct Writer {
  Text *out;
  void u8(uint8_t v) { out->addc(static_cast<char>(v)); }
  void u32(uint32_t v) {
    for (int i = 0; i < 4; i++) u8(static_cast<uint8_t>(v >> (8 * i)));
  }
  void u64(uint64_t v) {
    for (int i = 0; i < 8; i++) u8(static_cast<uint8_t>(v >> (8 * i)));
  }
  void i64(int64_t v) { u64(static_cast<uint64_t>(v)); }
  void str(Str s) { u32(s.off), u32(s.len); }
};

struct Reader {
  const uint8_t *p;
  size_t n, i = 0;
  bool bad = false;
  bool need(size_t k) {
    if (bad || n - i < k) bad = true;
    return !bad;
  }
  uint8_t u8() { return need(1) ? p[i++] : 0; }
  uint32_t u32() {
    if (!need(4)) return 0;
    uint32_t v = 0;
    for (int k = 0; k < 4; k++) v |= static_cast<uint32_t>(p[i + k]) << (8 * k);
    i += 4;
    return v;
  }
  uint64_t u64() {
    if (!need(8)) return 0;
    uint64_t v = 0;
    for (int k = 0; k < 8; k++) v |= static_cast<uint64_t>(p[i + k]) << (8 * k);
    i += 8;
    return v;
  }
  int64_t i64() { return static_cast<int64_t>(u64()); }
  Str str() {
    Str s;
    s.off = u32();
    s.len = u32();
    return s;
  }
  // A count of records of `size` bytes that the rest of the payload can hold.
  uint32_t count(size_t size) {
    uint32_t c = u32();
    if (!bad && static_cast<uint64_t>(c) * size > n - i) bad = true;
    return bad ? 0 : c;
  }
};

// An unknown provenance byte reads as none: it only explains, never decides.
RankFrom rank_from(uint8_t v) {
  return v <= static_cast<uint8_t>(RankFrom::kAgentWorker) ? static_cast<RankFrom>(v) : RankFrom::kNone;
}

CandidateKind candidate_kind(uint8_t v) {
  return v <= static_cast<uint8_t>(CandidateKind::kNativeStack) ? static_cast<CandidateKind>(v) : CandidateKind::kException;
}

}  // namespace

bool Evidence::serialize(Text *out) const {
  Text payload(alloc_);
  Writer w{&payload};
  w.u64(dropped_events_);
  w.i64(world_size_);
  w.i64(nodes_);
  w.u8(device_shared_);
  for (int64_t p : pid_of_device_) w.i64(p);
  w.u32(static_cast<uint32_t>(pool_.size()));
  payload.add(pool_.data(), pool_.size());
  w.u32(static_cast<uint32_t>(sources.size()));
  for (const SourceRec &s : sources)
    w.str(s.name), w.u64(s.bytes), w.u64(s.lines), w.i64(s.rank_hint), w.i64(s.local_rank_hint), w.i64(s.worker_rank),
        w.u64(s.completed_line);
  w.u32(static_cast<uint32_t>(groups.size()));
  for (const Group &g : groups) {
    w.u32(g.source), w.str(g.entry_id), w.i64(g.rank), w.str(g.host), w.u64(g.count), w.u64(g.first_line);
    w.u64(g.last_line), w.str(g.first_time), w.str(g.first_text), w.str(g.first_pattern), w.str(g.fields);
    w.u32(g.pattern_mask), w.u32(g.truncated), w.i64(g.pid), w.i64(g.local_rank), w.i64(g.device);
    w.i64(g.culprit_rank), w.u8(static_cast<uint8_t>(g.rank_from));
  }
  w.u32(static_cast<uint32_t>(hints.size()));
  for (const LaunchHint &h : hints)
    w.u32(h.source), w.u64(h.line), w.i64(h.rank), w.i64(h.local_rank), w.i64(h.exitcode), w.i64(h.signal), w.u8(h.has_exitcode),
        w.str(h.host);
  w.u32(static_cast<uint32_t>(progress.size()));
  for (const Progress &p : progress)
    w.u32(p.source), w.i64(p.rank), w.str(p.host), w.i64(p.timeout_seq), w.str(p.op_type), w.i64(p.last_enqueued),
        w.i64(p.last_completed), w.u64(p.line);
  w.u32(static_cast<uint32_t>(candidates.size()));
  for (const Candidate &c : candidates)
    w.u32(c.source), w.u64(c.line), w.i64(c.rank), w.str(c.host), w.str(c.time), w.str(c.text), w.str(c.exception),
        w.str(c.context), w.u8(c.explained), w.u8(static_cast<uint8_t>(c.rank_from)), w.u8(static_cast<uint8_t>(c.kind));
  w.u32(static_cast<uint32_t>(pid_ranks.size()));
  for (const RankOfPid &r : pid_ranks) w.str(r.host), w.i64(r.pid), w.i64(r.rank), w.i64(r.nranks);
  w.u32(static_cast<uint32_t>(exits.size()));
  for (const WorkerExit &x : exits)
    w.u32(x.source), w.u64(x.line), w.i64(x.rank), w.i64(x.local_rank), w.i64(x.exitcode), w.i64(x.signal), w.i64(x.pid),
        w.u8(x.has_exitcode), w.u8(x.first_observed), w.str(x.host);
  if (payload.failed()) return false;

  Writer h{out};
  out->add(kMagic, sizeof kMagic);
  h.u32(kFormat);
  h.u32(0);
  h.u64(payload.size());
  h.u64(xxh64(payload.data(), payload.size()));
  out->add(payload.data(), payload.size());
  return !out->failed();
}

bool Evidence::deserialize(const uint8_t *bytes, size_t len, ErrorText *err) {
  if (len < kHeader || std::memcmp(bytes, kMagic, sizeof kMagic) != 0) {
    err->set("not a faultline partial (magic \"FLPARTL1\" missing)");
    return false;
  }
  Reader hr{bytes, len, 8};
  uint32_t format = hr.u32();
  hr.u32();
  uint64_t size = hr.u64(), hash = hr.u64();
  if (format != kFormat) {
    err->set("partial format %u, this library reads format %u", format, kFormat);
    return false;
  }
  if (size != len - kHeader) {
    err->set("partial is %zu bytes, its header says %llu: truncated or padded", len - kHeader,
             static_cast<unsigned long long>(size));
    return false;
  }
  if (xxh64(bytes + kHeader, size) != hash) {
    err->set("partial content hash mismatch: corrupt");
    return false;
  }
  Reader r{bytes + kHeader, static_cast<size_t>(size)};
  uint64_t dropped = r.u64();
  int64_t world = r.i64();
  int64_t nodes = r.i64();
  device_shared_ = r.u8() != 0;
  for (int64_t &p : pid_of_device_) {
    p = r.i64();
    if (p < 0) p = -1;
  }
  uint32_t pool_len = r.u32();
  if (!r.need(pool_len) || pool_len == 0 || r.p[r.i] != '\0' || r.p[r.i + pool_len - 1] != '\0') {
    err->set("partial string pool is malformed");
    return false;
  }
  pool_.clear();
  pool_.add(reinterpret_cast<const char *>(r.p + r.i), pool_len);
  if (pool_.size() != pool_len) {  // out of memory: the checks below read pool_len bytes
    err->set("out of memory");
    return false;
  }
  r.i += pool_len;
  // A string must lie inside the pool and end in NUL (str() hands out C strings).
  auto ok = [&](Str s) {
    return static_cast<uint64_t>(s.off) + s.len < pool_len && (s.len == 0 || pool_.data()[s.off + s.len] == '\0');
  };
  bool good = true;
  uint32_t n = r.count(56);
  for (uint32_t i = 0; i < n && good; i++) {
    SourceRec s;
    s.name = r.str(), s.bytes = r.u64(), s.lines = r.u64(), s.rank_hint = r.i64(), s.local_rank_hint = r.i64();
    s.worker_rank = r.i64(), s.completed_line = r.u64();
    if (s.worker_rank < -2) s.worker_rank = -2;
    good = ok(s.name) && sources.push(s);
  }
  uint32_t ns = static_cast<uint32_t>(sources.size());
  n = good ? r.count(125) : 0;  // bytes per record, as written above
  for (uint32_t i = 0; i < n && good; i++) {
    Group g;
    g.source = r.u32(), g.entry_id = r.str(), g.rank = r.i64(), g.host = r.str(), g.count = r.u64();
    g.first_line = r.u64(), g.last_line = r.u64(), g.first_time = r.str(), g.first_text = r.str();
    g.first_pattern = r.str(), g.fields = r.str(), g.pattern_mask = r.u32(), g.truncated = r.u32();
    g.pid = r.i64(), g.local_rank = r.i64(), g.device = r.i64(), g.culprit_rank = r.i64();
    g.rank_from = rank_from(r.u8());
    good = g.source < ns && ok(g.entry_id) && ok(g.host) && ok(g.first_time) && ok(g.first_text) && ok(g.first_pattern) &&
           static_cast<uint64_t>(g.fields.off) + g.fields.len <= pool_len &&
           (g.fields.len == 0 || pool_.data()[g.fields.off + g.fields.len - 1] == '\0');
    g.entry = kNoEntry;
    if (good && pack_)
      for (uint32_t e = 0; e < pack_->entry_count(); e++)
        if (str_eq(g.entry_id, pack_->entry(e)->id()->c_str(), pack_->entry(e)->id()->size())) g.entry = e;
    good = good && groups.push(g);
  }
  n = good ? r.count(53) : 0;
  for (uint32_t i = 0; i < n && good; i++) {
    LaunchHint h;
    h.source = r.u32(), h.line = r.u64(), h.rank = r.i64(), h.local_rank = r.i64(), h.exitcode = r.i64();
    h.signal = r.i64(), h.has_exitcode = r.u8() != 0, h.host = r.str();
    good = h.source < ns && ok(h.host) && hints.push(h);
  }
  n = good ? r.count(60) : 0;
  for (uint32_t i = 0; i < n && good; i++) {
    Progress p;
    p.source = r.u32(), p.rank = r.i64(), p.host = r.str(), p.timeout_seq = r.i64(), p.op_type = r.str();
    p.last_enqueued = r.i64(), p.last_completed = r.i64(), p.line = r.u64();
    good = p.source < ns && ok(p.host) && ok(p.op_type) && progress.push(p);
  }
  n = good ? r.count(63) : 0;
  for (uint32_t i = 0; i < n && good; i++) {
    Candidate c;
    c.source = r.u32(), c.line = r.u64(), c.rank = r.i64(), c.host = r.str(), c.time = r.str(), c.text = r.str();
    c.exception = r.str(), c.context = r.str(), c.explained = r.u8() != 0, c.rank_from = rank_from(r.u8());
    c.kind = candidate_kind(r.u8());
    good = c.source < ns && ok(c.host) && ok(c.time) && ok(c.text) && ok(c.exception) && ok(c.context) && candidates.push(c);
  }
  n = good ? r.count(32) : 0;
  for (uint32_t i = 0; i < n && good; i++) {
    RankOfPid x;
    x.host = r.str(), x.pid = r.i64(), x.rank = r.i64(), x.nranks = r.i64();
    good = ok(x.host) && pid_ranks.push(x);
  }
  n = good ? r.count(62) : 0;
  for (uint32_t i = 0; i < n && good; i++) {
    WorkerExit x;
    x.source = r.u32(), x.line = r.u64(), x.rank = r.i64(), x.local_rank = r.i64(), x.exitcode = r.i64();
    x.signal = r.i64(), x.pid = r.i64(), x.has_exitcode = r.u8() != 0, x.first_observed = r.u8() != 0, x.host = r.str();
    good = x.source < ns && ok(x.host) && exits.size() < kMaxWorkerExits && exits.push(x);
  }
  if (!good || r.bad || r.i != r.n) {
    err->set("partial is malformed (a record or string is out of range)");
    return false;
  }
  dropped_events_ = dropped;
  world_size_ = world < -1 ? -1 : world;
  nodes_ = nodes < -1 ? -1 : nodes;
  table_.clear();
  rehash();
  return !failed();
}

}  // namespace faultline
