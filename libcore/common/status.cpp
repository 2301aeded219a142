#include "common/status.h"

#include <cstdarg>
#include <cstdio>

namespace faultline {

void ErrorText::set(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
}

}  // namespace faultline
