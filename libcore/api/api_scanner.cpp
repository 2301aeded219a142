// C API: scanners, over the line engine (match/line_scanner.h). What is
// here is the API's own: argument checks, options, detecting overlapping use,
// error messages.
#include <cstdio>
#include <cstring>
#include <new>

#include "api/handles.h"
#include "api/options.h"

using namespace faultline;

namespace {

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

fl_status fail(fl_scanner *s, fl_status status, const char *what) {
  std::snprintf(s->errmsg, sizeof s->errmsg, "%s", what);
  return status;
}

fl_status stopped(fl_scanner *s, bool stop) {
  if (!stop) return FL_OK;
  return fail(s, FL_E_STOPPED, "the event callback returned non-zero: later matches of the call were not reported");
}

}  // namespace

extern "C" {

fl_status fl_scanner_options_init(fl_scanner_options *opts, size_t size) {
  return init_options(opts, size, fl_scanner_options FL_SCANNER_OPTIONS_INIT);
}

fl_status fl_scanner_create(const fl_pack *pack, const fl_scanner_options *opts, fl_scanner **out) {
  if (!out) return FL_E_INVALID_ARG;
  *out = nullptr;
  fl_scanner_options o = FL_SCANNER_OPTIONS_INIT;
  if (!pack || !read_options(opts, &o)) return FL_E_INVALID_ARG;
  Allocator alloc = Allocator::from(o.allocator);
  void *mem = alloc.allocate(sizeof(fl_scanner));
  if (!mem) return FL_E_NOMEM;
  fl_scanner *s = new (mem) fl_scanner;
  pack_retain(pack);
  s->pack = pack;
  s->alloc = alloc;
  if (s->lines.create(&pack->lib, o.max_line_bytes, alloc) != Status::kOk) {
    fl_scanner_free(s);
    return FL_E_NOMEM;
  }
  *out = s;
  return FL_OK;
}

fl_status fl_scanner_feed(fl_scanner *scanner, const void *bytes, size_t len, fl_event_fn fn, void *ctx) {
  if (!scanner) return FL_E_INVALID_ARG;
  Claim claim(scanner);
  if (!claim.ok()) return FL_E_SCANNER_IN_USE;  // the message belongs to the other call
  scanner->errmsg[0] = '\0';
  if (!bytes && len) return fail(scanner, FL_E_INVALID_ARG, "fl_scanner_feed: bytes is NULL with a non-zero length");
  return stopped(scanner, scanner->lines.feed(static_cast<const uint8_t *>(bytes), len, fn, ctx));
}

fl_status fl_scanner_skip(fl_scanner *scanner, const void *bytes, size_t len, fl_event_fn fn, void *ctx) {
  if (!scanner) return FL_E_INVALID_ARG;
  Claim claim(scanner);
  if (!claim.ok()) return FL_E_SCANNER_IN_USE;
  scanner->errmsg[0] = '\0';
  if (!bytes && len) return fail(scanner, FL_E_INVALID_ARG, "fl_scanner_skip: bytes is NULL with a non-zero length");
  return stopped(scanner, scanner->lines.skip(static_cast<const uint8_t *>(bytes), len, fn, ctx));
}

fl_status fl_scanner_finish(fl_scanner *scanner, fl_event_fn fn, void *ctx) {
  if (!scanner) return FL_E_INVALID_ARG;
  Claim claim(scanner);
  if (!claim.ok()) return FL_E_SCANNER_IN_USE;
  scanner->errmsg[0] = '\0';
  return stopped(scanner, scanner->lines.finish(fn, ctx));
}

fl_status fl_scanner_get_stats(const fl_scanner *scanner, fl_scanner_stats *stats) {
  // Callers built against an older header pass a shorter struct: fill what it has.
  if (!scanner || !stats || stats->struct_size < offsetof(fl_scanner_stats, candidate_lines)) return FL_E_INVALID_ARG;
  const uint32_t size = stats->struct_size < sizeof(fl_scanner_stats) ? stats->struct_size : sizeof(fl_scanner_stats);
  fl_scanner_stats now{};
  scanner->lines.get_stats(&now);
  now.struct_size = size;
  std::memcpy(stats, &now, size);
  return FL_OK;
}

const char *fl_scanner_errmsg(const fl_scanner *scanner) { return scanner ? scanner->errmsg : ""; }

void fl_scanner_free(fl_scanner *scanner) {
  if (!scanner) return;
  Allocator alloc = scanner->alloc;
  const fl_pack *pack = scanner->pack;
  scanner->~fl_scanner();
  alloc.release(scanner);
  pack_release(pack);
}

}  // extern "C"
