// Helpers shared by the fuzz targets: invariant checks that abort (libFuzzer
// and the replay driver both report an abort as a failure), 8-byte aligned
// copies for packs, and a few real log lines.
#pragma once

#include <faultline.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

// An invariant of the library, not an input check: failing it is a bug.
#define FUZZ_CHECK(cond)                                                                      \
  do {                                                                                        \
    if (!(cond)) {                                                                            \
      std::fprintf(stderr, "fuzz invariant failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
      std::abort();                                                                           \
    }                                                                                         \
  } while (0)

namespace fuzz {

// The embedded default pack, opened once per process and shared by every input.
inline const fl_pack *default_pack() {
  static fl_pack *pack = [] {
    fl_pack *p = nullptr;
    FUZZ_CHECK(fl_pack_open_default(nullptr, &p, nullptr, 0) == FL_OK);
    return p;
  }();
  return pack;
}

// Packs are read in place and must be 8-byte aligned; fuzzer buffers need not be.
struct Aligned {
  std::vector<uint64_t> words;
  size_t size = 0;
  Aligned(const uint8_t *data, size_t n) : words(n / 8 + 1), size(n) {
    if (n) std::memcpy(words.data(), data, n);
  }
  uint8_t *data() { return reinterpret_cast<uint8_t *>(words.data()); }
};

// Lines from real failures (CUDA OOM, NCCL watchdog, torchrun), with and
// without framing prefixes, a bare '\r', ANSI escapes and a NUL.
inline constexpr char kLog[] =
    "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
    "79.15 GiB of which 1.02 GiB is free.\n"
    "[rank3]:[E ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation timeout: "
    "WorkNCCL(SeqNum=1172, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600042 "
    "milliseconds before timing out.\n"
    "node12:4242:4301 [3] NCCL INFO comm 0x55d0 rank 3 nranks 8 cudaDev 3 busId 41000 - Init COMPLETE\n"
    "RuntimeError: CUDA error: out of memory\r\x1b[31mtorch.distributed.elastic.multiprocessing.errors."
    "ChildFailedError:\x1b[0m\n"
    "  exitcode  : -9 (pid: 1234)\n"
    "plain line with a \0 byte\n"
    "no newline at the end";

}  // namespace fuzz
