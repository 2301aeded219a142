// XXH64 (seed 0) of the pack content: the integrity check in the pack header.
// It is the published XXH64, so `xxhsum -H64` can check a pack by hand.
#pragma once

#include <cstddef>
#include <cstdint>

namespace faultline {

uint64_t xxh64(const void *data, size_t len, uint64_t seed = 0);

}  // namespace faultline
