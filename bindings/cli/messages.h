// Messages on stderr. File names, option values and library messages may
// come from a job's user (a Slurm epilog diagnoses output paths the user
// chose): their control bytes become '?' so no message can drive the
// terminal or the log viewer it lands in.
#pragma once

#include <string>
#include <string_view>

namespace cli {

// Text from a log or a pack as it may be shown: every control byte (escape
// sequences above all) becomes '?', line breaks too unless kept.
std::string printable(std::string_view text, bool keep_newlines = false);

// printf to stderr, with every control byte but '\n' shown as '?'.
[[gnu::format(printf, 1, 2)]] void eprintf(const char *fmt, ...);

// --color=auto|always|never: whether to color output on `fd`. auto (the
// default): a terminal, NO_COLOR unset or empty (no-color.org), TERM not "dumb".
enum class ColorMode { kAuto, kAlways, kNever };
bool parse_color_mode(const char *value, ColorMode *out);
bool use_color(ColorMode mode, int fd);

}  // namespace cli
