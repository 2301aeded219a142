#include "messages.h"

#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace cli {

void eprintf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  va_list again;
  va_copy(again, ap);
  const int n = std::vsnprintf(nullptr, 0, fmt, ap);
  va_end(ap);
  if (n < 0) {
    va_end(again);
    return;
  }
  std::string s(static_cast<size_t>(n) + 1, '\0');
  std::vsnprintf(s.data(), s.size(), fmt, again);
  va_end(again);
  s.resize(static_cast<size_t>(n));
  s = printable(s, true);
  std::fwrite(s.data(), 1, s.size(), stderr);
}

std::string printable(std::string_view text, bool keep_newlines) {
  std::string s(text);
  for (char &c : s) {
    const unsigned char u = static_cast<unsigned char>(c);
    if ((u < 0x20 && !(keep_newlines && c == '\n')) || u == 0x7f) c = '?';
  }
  return s;
}

bool parse_color_mode(const char *v, ColorMode *out) {
  if (!std::strcmp(v, "auto")) return *out = ColorMode::kAuto, true;
  if (!std::strcmp(v, "always")) return *out = ColorMode::kAlways, true;
  if (!std::strcmp(v, "never")) return *out = ColorMode::kNever, true;
  return false;
}

bool use_color(ColorMode mode, int fd) {
  if (mode != ColorMode::kAuto) return mode == ColorMode::kAlways;
  const char *no_color = std::getenv("NO_COLOR"), *term = std::getenv("TERM");
  return isatty(fd) && !(no_color && *no_color) && !(term && !std::strcmp(term, "dumb"));
}

}  // namespace cli
