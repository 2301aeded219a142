// flc's own version, recorded in every pack it writes.
#pragma once

namespace faultline {
inline constexpr const char *kCompilerVersion = "flc 0.1.0";
}
