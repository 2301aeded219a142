#include "common/value_type.h"

#include <cstring>

namespace faultline {

namespace {

struct TypeName {
  const char *name;
  ValueType type;
};
constexpr TypeName kTypeNames[] = {
    {"number", ValueType::kNumber},         {"size", ValueType::kSize}, {"hostname", ValueType::kHostname},
    {"identifier", ValueType::kIdentifier}, {"path", ValueType::kPath}, {"text", ValueType::kText},
};

bool digit(unsigned char c) { return c >= '0' && c <= '9'; }
bool alnum(unsigned char c) { return digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// Every byte of v is alnum or in `also`, the first is alnum (or in `first`).
bool word_of(const char *v, size_t n, size_t max, const char *also, const char *first = "") {
  if (n == 0 || n > max) return false;
  for (size_t i = 0; i < n; i++) {
    const unsigned char c = static_cast<unsigned char>(v[i]);
    if (alnum(c)) continue;
    if (c == 0 || !std::strchr(i == 0 ? first : also, c)) return false;
  }
  return true;
}

bool number(const char *v, size_t n) {
  if (n == 0 || n > 19) return false;
  for (size_t i = 0; i < n; i++)
    if (!digit(static_cast<unsigned char>(v[i]))) return false;
  return true;
}

// 40GiB, 1.5G, 512 (no blank: a size is one word).
bool size(const char *v, size_t n) {
  size_t i = 0;
  while (i < n && digit(static_cast<unsigned char>(v[i]))) i++;
  if (i == 0 || i > 19) return false;
  if (i < n && v[i] == '.') {
    size_t j = ++i;
    while (i < n && digit(static_cast<unsigned char>(v[i]))) i++;
    if (i == j || i - j > 9) return false;
  }
  if (i < n && std::strchr("kKMGTPE", v[i]) && v[i]) i++;
  if (i < n && v[i] == 'i') i++;
  if (i < n && v[i] == 'B') i++;
  return i == n;
}

// A code point outside ASCII that a path may hold: a letter of any script,
// not a format or layout character that makes a command look other than it
// is (C1 controls, soft hyphen, zero-width and bidirectional marks, BOM,
// interlinear annotations). Returns its byte length, 0 when invalid.
size_t path_code_point(const unsigned char *p, size_t n) {
  uint32_t cp;
  size_t len;
  if (p[0] >= 0xC2 && p[0] <= 0xDF)
    cp = p[0] & 0x1Fu, len = 2;
  else if (p[0] >= 0xE0 && p[0] <= 0xEF)
    cp = p[0] & 0x0Fu, len = 3;
  else if (p[0] >= 0xF0 && p[0] <= 0xF4)
    cp = p[0] & 0x07u, len = 4;
  else
    return 0;
  if (n < len) return 0;
  for (size_t i = 1; i < len; i++) {
    if ((p[i] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (p[i] & 0x3Fu);
  }
  const uint32_t min[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < min[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;  // overlong, surrogate
  if (cp < 0xA0 || cp == 0xAD || (cp >= 0x2000 && cp <= 0x206F) || cp == 0xFEFF || (cp >= 0xFFF9 && cp <= 0xFFFB)) return 0;
  return len;
}

bool path(const char *v, size_t n) {
  if (n == 0 || n > 4096 || v[0] == '-' || v[0] == '~') return false;
  const auto *p = reinterpret_cast<const unsigned char *>(v);
  for (size_t i = 0; i < n;) {
    if (p[i] < 0x80) {
      if (!alnum(p[i]) && !(p[i] && std::strchr("_./+@%,:=-", p[i]))) return false;
      i++;
      continue;
    }
    const size_t len = path_code_point(p + i, n - i);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

}  // namespace

ValueType value_type_named(const char *name, size_t len) {
  for (const TypeName &t : kTypeNames)
    if (std::strlen(t.name) == len && std::memcmp(t.name, name, len) == 0) return t.type;
  return ValueType::kUnknown;
}

const char *value_type_name(ValueType t) {
  for (const TypeName &x : kTypeNames)
    if (x.type == t) return x.name;
  return "unknown";
}

bool value_fits(ValueType t, const char *v, size_t n) {
  switch (t) {
    case ValueType::kNumber:
      return number(v, n);
    case ValueType::kSize:
      return size(v, n);
    case ValueType::kHostname:
      return word_of(v, n, 253, "._:%-");
    case ValueType::kIdentifier:
      return word_of(v, n, 256, "_.:@+/=,-", "_");
    case ValueType::kPath:
      return path(v, n);
    default:
      return false;
  }
}

}  // namespace faultline
