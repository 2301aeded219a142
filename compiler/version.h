// flc's own version, recorded in every pack it writes: the library's.
#pragma once

#include "common/version.h"

namespace faultline {
inline constexpr const char *kCompilerVersion = "flc " FL__VERSION_TEXT;
}
