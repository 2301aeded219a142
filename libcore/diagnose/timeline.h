// When things happened: timestamps as logs print them, made comparable, and
// the order of two pieces of evidence (by time when both have one, else by
// line within the same log).
#pragma once

#include <cstddef>
#include <cstdint>

#include "diagnose/evidence.h"

namespace faultline {

// Comparable time of a timestamp as printed (month, day, time of day in
// microseconds; the year is ignored), or -1 when it is not a known format.
int64_t time_key(const char *s, size_t n);

// -1: group a came before b, 1: after, 0: unknown.
int group_order(const Evidence &ev, const Group &a, const Group &b);

// Whether candidate x came before y (by time when both have one, else by line in the same log).
bool candidate_before(const Evidence &ev, const Candidate &x, const Candidate &y);

}  // namespace faultline
