// An entry rendered as a readable encyclopedia page (text or Markdown), as
// `faultline explain ID` shows it.
#pragma once

#include "common/growbuf.h"
#include "match/library.h"

namespace faultline {

// Display name of a code example's stack key ("hf-trainer" -> "Hugging Face
// Trainer"); an unknown key is returned as it is.
const char *code_stack_name(const char *key);
// The question an entry's answer answers ("Hardware or software?").
const char *question_text(fb::Question q);

void render_entry_page(const Library &pack, uint32_t index, bool markdown, Text *out);

}  // namespace faultline
