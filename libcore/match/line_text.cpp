#include "match/line_text.h"

namespace faultline {

size_t strip_ansi(const uint8_t *line, size_t len, uint8_t *out) {
  size_t o = 0, i = 0;
  while (i < len) {
    if (line[i] != 0x1b) {
      out[o++] = line[i++];
      continue;
    }
    if (i + 1 >= len) break;  // a lone ESC at the end
    uint8_t kind = line[i + 1];
    i += 2;
    if (kind == '[') {
      // CSI: parameter (0x30-0x3f) and intermediate (0x20-0x2f) bytes, then
      // one final byte (0x40-0x7e).
      while (i < len && line[i] >= 0x20 && line[i] <= 0x3f) i++;
      if (i < len && line[i] >= 0x40 && line[i] <= 0x7e) i++;
    } else if (kind == ']') {
      // OSC: up to BEL or ESC '\'.
      while (i < len && line[i] != 0x07 && !(line[i] == 0x1b && i + 1 < len && line[i + 1] == '\\')) i++;
      if (i < len) i += line[i] == 0x07 ? 1 : 2;
    } else if (kind >= 0x20 && kind <= 0x2f) {
      // nF escapes such as ESC ( B (character set): intermediates, then one
      // final byte.
      while (i < len && line[i] >= 0x20 && line[i] <= 0x2f) i++;
      if (i < len && line[i] >= 0x30 && line[i] <= 0x7e) i++;
    }
    // Any other ESC x: both bytes dropped.
  }
  return o;
}

}  // namespace faultline
