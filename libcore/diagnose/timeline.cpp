#include "diagnose/timeline.h"

namespace faultline {

namespace {

bool digit(char c) { return c >= '0' && c <= '9'; }

int64_t num(const char *p, size_t n) {
  int64_t v = 0;
  for (size_t i = 0; i < n; i++) v = v * 10 + (p[i] - '0');
  return v;
}

// Reads `n` digits at p[i], advancing i; -1 if they are not all digits.
int64_t digits(const char *p, size_t len, size_t *i, size_t n) {
  if (*i + n > len) return -1;
  for (size_t k = 0; k < n; k++)
    if (!digit(p[*i + k])) return -1;
  int64_t v = num(p + *i, n);
  *i += n;
  return v;
}

int64_t key_of(int64_t month, int64_t day, int64_t h, int64_t m, int64_t s, int64_t micros) {
  if (month < 1 || month > 12 || day < 1 || day > 31 || h > 23 || m > 59 || s > 60) return -1;
  return ((((month * 32 + day) * 24 + h) * 60 + m) * 60 + s) * 1000000 + micros;
}

// "HH:MM:SS" then an optional fraction after '.' or ','.
int64_t clock_at(const char *p, size_t len, size_t i, int64_t month, int64_t day) {
  int64_t h = digits(p, len, &i, 2);
  if (h < 0 || i >= len || p[i++] != ':') return -1;
  int64_t m = digits(p, len, &i, 2);
  if (m < 0 || i >= len || p[i++] != ':') return -1;
  int64_t s = digits(p, len, &i, 2);
  if (s < 0) return -1;
  int64_t micros = 0;
  if (i < len && (p[i] == '.' || p[i] == ',')) {
    i++;
    int64_t scale = 100000;
    while (i < len && digit(p[i])) {
      micros += (p[i] - '0') * scale;
      scale /= 10;
      i++;
    }
  }
  return key_of(month, day, h, m, s, micros);
}

}  // namespace

int64_t time_key(const char *p, size_t len) {
  if (!p || len < 8) return -1;
  size_t i = 0;
  // "YYYY-MM-DD[T ]HH:MM:SS..." (also "YYYY-MM-DD_HH:MM:SS" of torchrun)
  if (len >= 19 && p[4] == '-' && p[7] == '-') {
    i = 5;
    int64_t mo = digits(p, len, &i, 2);
    i = 8;
    int64_t dd = digits(p, len, &i, 2);
    if (mo < 0 || dd < 0 || (p[10] != 'T' && p[10] != ' ' && p[10] != '_')) return -1;
    return clock_at(p, len, 11, mo, dd);
  }
  // "MM/DD/YYYY HH:MM:SS"
  if (len >= 19 && p[2] == '/' && p[5] == '/') {
    int64_t mo = digits(p, len, &i, 2);
    i = 3;
    int64_t dd = digits(p, len, &i, 2);
    if (mo < 0 || dd < 0 || p[10] != ' ') return -1;
    return clock_at(p, len, 11, mo, dd);
  }
  // glog: "MMDD HH:MM:SS.frac", "MDD ...", "YYYYMMDD ..."
  size_t n = 0;
  while (n < len && digit(p[n])) n++;
  if ((n == 3 || n == 4 || n == 8) && n < len && p[n] == ' ') {
    const char *md = p + (n == 8 ? 4 : 0);
    size_t mdn = n == 8 ? 4 : n;
    int64_t mo = num(md, mdn - 2), dd = num(md + mdn - 2, 2);
    return clock_at(p, len, n + 1, mo, dd);
  }
  return -1;
}

int group_order(const Evidence &ev, const Group &a, const Group &b) {
  const int64_t ta = time_key(ev.str(a.first_time), a.first_time.len), tb = time_key(ev.str(b.first_time), b.first_time.len);
  if (ta >= 0 && tb >= 0 && ta != tb) return ta < tb ? -1 : 1;
  if (a.source == b.source && a.first_line != b.first_line) return a.first_line < b.first_line ? -1 : 1;
  return 0;
}

bool candidate_before(const Evidence &ev, const Candidate &x, const Candidate &y) {
  const int64_t tx = time_key(ev.str(x.time), x.time.len), ty = time_key(ev.str(y.time), y.time.len);
  return (tx >= 0 && ty >= 0 && tx < ty) || (x.source == y.source && x.line < y.line && !(tx >= 0 && ty >= 0 && tx > ty));
}

}  // namespace faultline
