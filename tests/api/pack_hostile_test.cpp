// Hostile packs through the C API: every truncation of a small pack, one
// test per header field, and thousands of random byte flips and field
// rewrites (re-hashed, so the verifier and our index checks see them): each
// is refused with the right status, or loads and scans a log cleanly.
#include <doctest/doctest.h>
#include <faultline.h>

#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/hash.h"

namespace {

std::vector<uint8_t> small_pack() {
  std::ifstream f(FAULTLINE_SMALL_PACK, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  std::string b = s.str();
  REQUIRE(b.size() > 64);
  return std::vector<uint8_t>(b.begin(), b.end());
}

// Opens `bytes` from 8-byte aligned memory; on success scans a few lines.
fl_status open_and_scan(const std::vector<uint8_t> &bytes, std::string *err_out = nullptr) {
  std::vector<uint64_t> mem(bytes.size() / 8 + 1);
  if (!bytes.empty()) std::memcpy(mem.data(), bytes.data(), bytes.size());
  fl_pack *pack = nullptr;
  char err[256] = {0};
  fl_status st = fl_pack_open_memory(mem.data(), bytes.size(), nullptr, &pack, err, sizeof err);
  if (err_out) *err_out = err;
  if (st != FL_OK) {
    CHECK(pack == nullptr);
    return st;
  }
  fl_scanner *s = nullptr;
  if (fl_scanner_create(pack, nullptr, &s) == FL_OK) {
    static const char log[] =
        "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 "
        "GiB\n"
        "RuntimeError: CUDA error: out of memory\nplain line\r\x1b[31mred\x1b[0m\n";
    auto count = [](void *ctx, const fl_event *ev) {
      ++*static_cast<int *>(ctx);
      return ev->line_len > 1u << 20 ? 1 : 0;  // touches the event's fields
    };
    int n = 0;
    fl_scanner_feed(s, log, sizeof log - 1, count, &n);
    fl_scanner_finish(s, count, &n);
    fl_scanner_free(s);
  }
  for (uint32_t i = 0; i < fl_pack_entry_count(pack); i++) {
    CHECK(fl_pack_entry_id(pack, i) != nullptr);
    CHECK(fl_pack_entry_title(pack, i) != nullptr);
  }
  fl_pack_free(pack);
  return FL_OK;
}

void rehash(std::vector<uint8_t> &b) {
  uint64_t h = faultline::xxh64(b.data() + 64, b.size() - 64);
  std::memcpy(b.data() + 24, &h, 8);
}

template <typename T>
std::vector<uint8_t> with_field(std::vector<uint8_t> b, size_t offset, T value) {
  std::memcpy(b.data() + offset, &value, sizeof value);
  return b;
}

}  // namespace

TEST_CASE("hostile packs: the small pack itself loads and scans") { CHECK(open_and_scan(small_pack()) == FL_OK); }

TEST_CASE("hostile packs: every truncation is refused") {
  auto good = small_pack();
  for (size_t n = 0; n < good.size(); n++) {
    std::vector<uint8_t> cut(good.begin(), good.begin() + static_cast<long>(n));
    fl_status st = open_and_scan(cut);
    CAPTURE(n);
    CHECK((n < 4 ? st == FL_E_NOT_A_PACK : st == FL_E_PACK_CORRUPT));
  }
}

TEST_CASE("hostile packs: one test per header field") {
  auto good = small_pack();
  std::string err;
  CHECK(open_and_scan(with_field<char>(good, 0, 'X'), &err) == FL_E_NOT_A_PACK);  // magic
  CHECK(open_and_scan(with_field<uint16_t>(good, 4, FL_PACK_FORMAT_MAJOR + 1), &err) == FL_E_PACK_VERSION);
  CHECK(err.find("pack format " + std::to_string(FL_PACK_FORMAT_MAJOR + 1) + "." + std::to_string(FL_PACK_FORMAT_MINOR) +
                 " is not readable by this runtime (format " + std::to_string(FL_PACK_FORMAT_MAJOR) + "." +
                 std::to_string(FL_PACK_FORMAT_MINOR) + ")") != std::string::npos);
  CHECK(open_and_scan(with_field<uint16_t>(good, 4, 0), &err) == FL_E_PACK_VERSION);
  CHECK(open_and_scan(with_field<uint16_t>(good, 6, FL_PACK_FORMAT_MINOR + 7)) == FL_OK);  // newer minor
  for (uint32_t hb : {0u, 8u, 63u, 72u, 0xffffffffu})                                      // header_bytes
    CHECK(open_and_scan(with_field<uint32_t>(good, 8, hb)) == FL_E_PACK_CORRUPT);
  CHECK(open_and_scan(with_field<uint32_t>(good, 12, 1u)) == FL_E_PACK_CORRUPT);                         // flags
  for (uint64_t tb : {uint64_t{0}, uint64_t{good.size() - 1}, uint64_t{good.size() + 1}, ~uint64_t{0}})  // total_bytes
    CHECK(open_and_scan(with_field<uint64_t>(good, 16, tb)) == FL_E_PACK_CORRUPT);
  CHECK(open_and_scan(with_field<uint64_t>(good, 24, 0x1234u), &err) == FL_E_PACK_CORRUPT);  // content_hash
  CHECK(err.find("hash mismatch") != std::string::npos);
  for (size_t off : {32u, 36u, 40u}) {  // counts
    CHECK(open_and_scan(with_field<uint32_t>(good, off, 999u), &err) == FL_E_PACK_CORRUPT);
    CHECK(err.find("counts disagree") != std::string::npos);
  }
  CHECK(open_and_scan(with_field<uint8_t>(good, 50, 1)) == FL_E_PACK_CORRUPT);  // reserved
}

// Applies `mutate` to 3,000 copies of the small pack, re-hashes each so the
// verifier and the index checks see the change, and requires every one to
// be refused as corrupt or to load and scan cleanly.
template <typename Mutate>
void mutate_and_open(uint32_t seed, Mutate &&mutate) {
  auto good = small_pack();
  std::mt19937 rng(seed);
  int refused = 0, loaded = 0;
  for (int i = 0; i < 3000; i++) {
    auto b = good;
    mutate(b, rng);
    rehash(b);
    fl_status st = open_and_scan(b);
    CHECK((st == FL_OK || st == FL_E_PACK_CORRUPT));
    (st == FL_OK ? loaded : refused)++;
  }
  MESSAGE(refused << " refused, " << loaded << " loaded and scanned");
  CHECK(refused > 0);
}

TEST_CASE("hostile packs: random byte flips, re-hashed, are refused or harmless") {
  mutate_and_open(42, [](std::vector<uint8_t> &b, std::mt19937 &rng) {
    int flips = std::uniform_int_distribution<int>(1, 4)(rng);
    for (int k = 0; k < flips; k++) {
      size_t at = std::uniform_int_distribution<size_t>(64, b.size() - 1)(rng);
      b[at] ^= static_cast<uint8_t>(1u << std::uniform_int_distribution<int>(0, 7)(rng));
    }
  });
}

TEST_CASE("hostile packs: 32-bit field rewrites with extreme values, re-hashed") {
  static const uint32_t values[] = {0u, 1u, 2u, 0x7fffffffu, 0x80000000u, 0xffffffffu, 0xfffffffeu, 255u, 256u, 65535u, 65536u};
  mutate_and_open(7, [](std::vector<uint8_t> &b, std::mt19937 &rng) {
    size_t at = 64 + 4 * std::uniform_int_distribution<size_t>(0, (b.size() - 68) / 4)(rng);
    uint32_t v = values[std::uniform_int_distribution<size_t>(0, std::size(values) - 1)(rng)];
    std::memcpy(b.data() + at, &v, 4);
  });
}

TEST_CASE("pack info: describes a blob without opening it") {
  auto good = small_pack();
  std::vector<uint64_t> aligned(good.size() / 8 + 1);
  std::memcpy(aligned.data(), good.data(), good.size());
  fl_pack_info info;
  info.struct_size = sizeof info;
  REQUIRE(fl_pack_info_get(aligned.data(), good.size(), &info) == FL_OK);
  CHECK(info.format_major == FL_PACK_FORMAT_MAJOR);
  CHECK(info.format_minor == FL_PACK_FORMAT_MINOR);
  CHECK(info.total_bytes == good.size());
  CHECK(info.entry_count == 1);
  CHECK(info.pattern_count >= 1);
  CHECK(info.dfa_count >= 1);
  CHECK(info.content_valid == 1);
  CHECK(std::string(info.pack_version) == "0.1.0");
  CHECK(std::string(info.compiler_version).rfind("flc ", 0) == 0);
  CHECK(info.content_hash == faultline::xxh64(good.data() + 64, good.size() - 64));

  // Unaligned: the header and hash are still checked, the strings are not read.
  std::vector<uint8_t> shifted(good.size() + 1);
  std::memcpy(shifted.data() + 1, good.data(), good.size());
  info.struct_size = sizeof info;
  REQUIRE(fl_pack_info_get(shifted.data() + 1, good.size(), &info) == FL_OK);
  CHECK(info.entry_count == 1);
  CHECK(info.content_valid == 0);
  CHECK(info.pack_version[0] == '\0');

  auto flipped = good;
  flipped[good.size() / 2] ^= 1;
  info.struct_size = sizeof info;
  CHECK(fl_pack_info_get(flipped.data(), flipped.size(), &info) == FL_E_PACK_CORRUPT);
  CHECK(fl_pack_info_get("junk", 4, &info) == FL_E_NOT_A_PACK);
  info.struct_size = 8;
  CHECK(fl_pack_info_get(good.data(), good.size(), &info) == FL_E_INVALID_ARG);
}
