// Pack open + verification on arbitrary bytes. Each input is tried twice: as
// given (magic, version, length and hash checks), and with a repaired header
// (magic, format, header size, length and content hash set to what the bytes
// need), so that the FlatBuffers verifier and our index checks see arbitrary
// content. Header counts are left to the fuzzer (it finds them by comparison).
#include "pack_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz::check_pack_bytes(data, size);
  if (size < 64) return 0;
  std::vector<uint8_t> b(data, data + size);
  const uint16_t major = FL_PACK_FORMAT_MAJOR;
  const uint32_t header_bytes = 64, flags = 0;
  const uint64_t total = size;
  std::memcpy(b.data(), "FLPK", 4);
  std::memcpy(b.data() + 4, &major, 2);
  std::memcpy(b.data() + 8, &header_bytes, 4);
  std::memcpy(b.data() + 12, &flags, 4);
  std::memcpy(b.data() + 16, &total, 8);
  std::memset(b.data() + 44, 0, 20);
  fuzz::rehash_pack(b.data(), b.size());
  fuzz::check_pack_bytes(b.data(), b.size());
  return 0;
}
