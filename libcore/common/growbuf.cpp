#include "common/growbuf.h"

#include <cstdarg>
#include <cstdio>

namespace faultline {

void Text::add_u64(uint64_t v) {
  char tmp[24];
  int n = 0;
  do {
    tmp[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v);
  while (n) addc(tmp[--n]);
}

void Text::add_i64(int64_t v) {
  if (v < 0) {
    addc('-');
    add_u64(static_cast<uint64_t>(-(v + 1)) + 1);
  } else {
    add_u64(static_cast<uint64_t>(v));
  }
}

void Text::addf(const char *fmt, ...) {
  char tmp[512];
  va_list ap;
  va_start(ap, fmt);
  int n = std::vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  add(tmp, static_cast<size_t>(n) < sizeof tmp ? static_cast<size_t>(n) : sizeof tmp - 1);
}

const char *Text::c_str() {
  if (!push('\0')) return "";
  truncate(size() - 1);
  return data();
}

}  // namespace faultline
