// Which directory members are logs: one rule for the command and the bindings.
#include <cstring>

#include "faultline.h"

namespace {

bool ends_with(const char *s, size_t n, const char *suffix) {
  const size_t k = std::strlen(suffix);
  return n > k && std::memcmp(s + n - k, suffix, k) == 0;
}

constexpr const char *kCompressed[] = {".gz", ".zst"};
constexpr const char *kLogs[] = {".log", ".txt", ".out", ".err", ".stdout", ".stderr"};

}  // namespace

extern "C" int fl_is_log_file_name(const char *name) {
  if (!name || !name[0] || name[0] == '.') return 0;
  size_t n = std::strlen(name);
  for (const char *z : kCompressed)
    if (ends_with(name, n, z)) {
      n -= std::strlen(z);
      break;
    }
  for (const char *e : kLogs)
    if (ends_with(name, n, e)) return 1;
  return 0;
}
