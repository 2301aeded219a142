// An entry rendered as a readable encyclopedia page (text or Markdown), as
// `faultline explain ID` shows it.
#pragma once

#include "common/growbuf.h"
#include "match/library.h"

namespace faultline {

void render_entry_page(const Library &pack, uint32_t index, bool markdown, Text *out);

}  // namespace faultline
