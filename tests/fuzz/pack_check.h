// What the pack targets do with bytes: open them as a pack, require the
// library's statuses to be consistent, and use every pack that opens (entry
// accessors, pages, a scan and a diagnosis of a small log). A pack the
// verifier accepts must be safe to use: any crash here is a verifier gap.
#pragma once

#include <string>

#include "common/hash.h"
#include "fuzz_common.h"

namespace fuzz {

// Sets content_hash (offset 24) to XXH64 of the content after a 64-byte header.
inline void rehash_pack(uint8_t *b, size_t n) {
  if (n < 64) return;
  uint64_t h = faultline::xxh64(b + 64, n - 64);
  std::memcpy(b + 24, &h, 8);
}

inline int count_event(void *ctx, const fl_event *ev) {
  // Touch what the event points at, so ASan checks it.
  size_t sum = 0;
  for (size_t i = 0; i < ev->line_len; i++) sum += static_cast<unsigned char>(ev->line[i]);
  for (uint32_t c = 0; c < ev->capture_count; c++) sum += std::strlen(ev->captures[c].name) + ev->captures[c].value_len;
  sum += std::strlen(ev->entry_id) + std::strlen(ev->pattern);
  *static_cast<size_t *>(ctx) += 1 + (sum & 1);
  return 0;
}

inline void use_pack(fl_pack *pack) {
  const uint32_t n = fl_pack_entry_count(pack);
  FUZZ_CHECK(fl_pack_entry_id(pack, n) == nullptr);
  for (uint32_t i = 0; i < n; i++) {
    const char *id = fl_pack_entry_id(pack, i);
    FUZZ_CHECK(id && fl_pack_entry_title(pack, i) && fl_pack_entry_type(pack, i) && fl_pack_entry_category(pack, i));
    // Ids need not be unique as C strings (a FlatBuffers string may hold a NUL),
    // but the first entry with this text comes no later than i.
    uint32_t found = fl_pack_find_entry(pack, id);
    FUZZ_CHECK(found <= i && std::strcmp(fl_pack_entry_id(pack, found), id) == 0);
    if (i < 4) {  // pages are slow on big packs; the first few exercise the renderer
      for (int format : {FL_PAGE_TEXT, FL_PAGE_MARKDOWN}) {
        size_t len = fl_pack_entry_page(pack, i, format, nullptr, 0);
        std::string page(len + 1, '\x7f');
        FUZZ_CHECK(fl_pack_entry_page(pack, i, format, page.data(), page.size()) == len);
        FUZZ_CHECK(page[len] == '\0');
      }
    }
  }
  FUZZ_CHECK(fl_pack_version(pack) != nullptr);

  fl_scanner *s = nullptr;
  if (fl_scanner_create(pack, nullptr, &s) == FL_OK) {
    size_t events = 0;
    FUZZ_CHECK(fl_scanner_feed(s, kLog, 100, count_event, &events) == FL_OK);
    FUZZ_CHECK(fl_scanner_feed(s, kLog + 100, sizeof kLog - 101, count_event, &events) == FL_OK);
    FUZZ_CHECK(fl_scanner_finish(s, count_event, &events) == FL_OK);
    fl_scanner_free(s);
  }

  fl_diagnoser *d = nullptr;
  if (fl_diagnoser_create(pack, nullptr, &d) == FL_OK) {
    FUZZ_CHECK(fl_diagnoser_begin_source(d, "logs/rank3.log") == FL_OK);
    FUZZ_CHECK(fl_diagnoser_feed(d, kLog, sizeof kLog - 1) == FL_OK);
    const void *part = nullptr;
    size_t part_len = 0;
    FUZZ_CHECK(fl_diagnoser_partial(d, &part, &part_len) == FL_OK);
    std::string copy(static_cast<const char *>(part), part_len);
    FUZZ_CHECK(fl_diagnoser_merge_partial(d, copy.data(), copy.size()) == FL_OK);  // what it wrote, it reads
    for (int format : {FL_REPORT_JSON, FL_REPORT_TEXT, FL_REPORT_TEXT_COLOR, FL_REPORT_SUMMARY}) {
      const char *text = nullptr;
      size_t len = 0;
      FUZZ_CHECK(fl_diagnoser_report(d, format, &text, &len) == FL_OK);
      FUZZ_CHECK(text && std::strlen(text) == len);
      if (format == FL_REPORT_SUMMARY) FUZZ_CHECK(std::strpbrk(text, "\r\n") == nullptr && len <= 1023);  // one line
    }
    fl_diagnosis r{};
    r.struct_size = sizeof r;
    FUZZ_CHECK(fl_diagnoser_result(d, &r) == FL_OK);
    fl_diagnoser_free(d);
  }
}

// Opens `n` bytes as a pack; the open and the header-only description must
// agree (same checks, same order), and a pack that opens is used.
inline void check_pack_bytes(const uint8_t *bytes, size_t n) {
  Aligned a(bytes, n);
  fl_pack_info info;
  info.struct_size = sizeof info;
  const fl_status st_info = fl_pack_info_get(a.data(), n, &info);
  fl_pack *pack = nullptr;
  char err[256] = {0};
  const fl_status st = fl_pack_open_memory(a.data(), n, nullptr, &pack, err, sizeof err);
  FUZZ_CHECK(st == st_info);
  if (st != FL_OK) {
    FUZZ_CHECK(pack == nullptr);
    FUZZ_CHECK(st == FL_E_NOT_A_PACK || st == FL_E_PACK_VERSION || st == FL_E_PACK_CORRUPT);
    FUZZ_CHECK(err[0] != '\0');
    return;
  }
  FUZZ_CHECK(info.content_valid == 1 && info.entry_count == fl_pack_entry_count(pack));
  use_pack(pack);
  fl_pack_free(pack);
}

}  // namespace fuzz
