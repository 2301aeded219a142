// The fingerprint of a failure (faultline-fp/1, libcore/report/REPORT.md):
// the same failure in another run, on other ranks and hosts, gets the same
// value, so that fleets can count and group failures.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/growbuf.h"

namespace faultline {

struct Diagnosis;
class Evidence;

inline constexpr const char *kFingerprintAlgorithm = "faultline-fp/1";

// Sets d->fingerprint and d->fingerprint_template from the root (nothing
// without a failure).
void fingerprint_root(const Evidence &ev, Diagnosis *d);

// The value as printed: "fp1:" and 16 hex digits, NUL-terminated.
struct FingerprintText {
  char text[24];
  explicit FingerprintText(uint64_t fingerprint);
};

// Normalizes text into a template: digit runs, hex ids and paths replaced,
// so that the same failure in another run gives the same template.
void template_of(const char *s, size_t n, Text *out);

}  // namespace faultline
