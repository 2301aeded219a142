// Partial reports (fl_diagnoser_partial / fl_diagnoser_merge_partial, what
// `faultline diagnose --jobs`, `partial` and `merge` use). Each input is used
// three ways:
//  1. as a partial, as given: refused with FL_E_INVALID_ARG and a message, or merged;
//  2. as the payload of a partial whose header (magic, format, length, XXH64)
//     is made right, so that the record and string checks see arbitrary bytes;
//     a partial that merges must diagnose and render, and what the diagnoser
//     then writes as its partial must read back into the same report;
//  3. as log bytes, split in two sources diagnosed apart: each source's
//     diagnoser merging the other's partial (so both orders) must give exactly
//     the report of diagnosing both together (the documented merge property).
#include <string>

#include "common/hash.h"
#include "fuzz_common.h"

namespace {

fl_diagnoser *new_diagnoser() {
  fl_diagnoser *d = nullptr;
  FUZZ_CHECK(fl_diagnoser_create(fuzz::default_pack(), nullptr, &d) == FL_OK);
  return d;
}

std::string report(fl_diagnoser *d, int format) {
  const char *text = nullptr;
  size_t len = 0;
  FUZZ_CHECK(fl_diagnoser_report(d, format, &text, &len) == FL_OK);
  FUZZ_CHECK(text && std::strlen(text) == len);
  return std::string(text, len);
}

std::string partial_of(fl_diagnoser *d) {
  const void *bytes = nullptr;
  size_t len = 0;
  FUZZ_CHECK(fl_diagnoser_partial(d, &bytes, &len) == FL_OK);
  return std::string(static_cast<const char *>(bytes), len);
}

void merge_ok(fl_diagnoser *d, const std::string &partial) {
  FUZZ_CHECK(fl_diagnoser_merge_partial(d, partial.data(), partial.size()) == FL_OK);
}

// Diagnosers are costly to create (scanner memory is sized from the default
// pack), so the targets make few: a refused partial leaves one as it was.
bool decode(fl_diagnoser *d, const uint8_t *bytes, size_t n) {
  const fl_status st = fl_diagnoser_merge_partial(d, bytes, n);
  FUZZ_CHECK(st == FL_OK || st == FL_E_INVALID_ARG);
  if (st != FL_OK) FUZZ_CHECK(fl_diagnoser_errmsg(d)[0] != '\0');
  return st == FL_OK;
}

// A diagnoser that merged partials must diagnose and render, and the evidence
// it then holds, written and read back, must diagnose the same.
void check_merged(fl_diagnoser *d) {
  const std::string json = report(d, FL_REPORT_JSON);
  for (int format : {FL_REPORT_TEXT, FL_REPORT_TEXT_COLOR, FL_REPORT_SUMMARY}) report(d, format);
  fl_diagnosis r{};
  r.struct_size = sizeof r;
  FUZZ_CHECK(fl_diagnoser_result(d, &r) == FL_OK);
  fl_diagnoser *again = new_diagnoser();
  merge_ok(again, partial_of(d));
  FUZZ_CHECK(report(again, FL_REPORT_JSON) == json);
  fl_diagnoser_free(again);
}

void put_u32(std::string *s, uint32_t v) { s->append(reinterpret_cast<const char *>(&v), 4); }
void put_u64(std::string *s, uint64_t v) { s->append(reinterpret_cast<const char *>(&v), 8); }

// libcore/diagnose/partial.cpp: "FLPARTL1", u32 format 6, u32 0, u64 payload bytes, u64 XXH64(payload).
std::string wrap(const uint8_t *payload, size_t n) {
  std::string p("FLPARTL1");
  put_u32(&p, 6);
  put_u32(&p, 0);
  put_u64(&p, n);
  put_u64(&p, faultline::xxh64(payload, n));
  p.append(reinterpret_cast<const char *>(payload), n);
  return p;
}

void merge_property(const uint8_t *log, size_t n) {
  const size_t cut = n ? log[0] * n / 256 : 0;  // the first byte places the split
  const char *names[2] = {"node0/rank0.log", "node1/rank1.log"};
  const uint8_t *part[2] = {log, log + cut};
  const size_t len[2] = {cut, n - cut};

  fl_diagnoser *whole = new_diagnoser(), *one[2];
  std::string partials[2];
  for (int i = 0; i < 2; i++) {
    FUZZ_CHECK(fl_diagnoser_begin_source(whole, names[i]) == FL_OK);
    FUZZ_CHECK(fl_diagnoser_feed(whole, part[i], len[i]) == FL_OK);
    one[i] = new_diagnoser();
    FUZZ_CHECK(fl_diagnoser_begin_source(one[i], names[i]) == FL_OK);
    FUZZ_CHECK(fl_diagnoser_feed(one[i], part[i], len[i]) == FL_OK);
    partials[i] = partial_of(one[i]);
  }
  const std::string expected = report(whole, FL_REPORT_JSON);
  // Each node's diagnoser merges the other's partial: both orders, as
  // `diagnose --jobs` merges partials into a diagnoser.
  for (int i = 0; i < 2; i++) {
    merge_ok(one[i], partials[1 - i]);
    FUZZ_CHECK(report(one[i], FL_REPORT_JSON) == expected);
    fl_diagnoser_free(one[i]);
  }
  fl_diagnoser_free(whole);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fl_diagnoser *d = new_diagnoser();
  bool merged = decode(d, data, size);
  const std::string wrapped = wrap(data, size);
  merged = decode(d, reinterpret_cast<const uint8_t *>(wrapped.data()), wrapped.size()) || merged;
  if (merged) check_merged(d);
  fl_diagnoser_free(d);
  merge_property(data, size);
  return 0;
}
