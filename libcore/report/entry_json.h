// An entry as structured JSON (`faultline explain --format json ID`): every
// field of its encyclopedia page, for programs that render their own pages
// (the static site of bindings/wasm/site) or index the encyclopedia.
#pragma once

#include "common/alloc.h"
#include "common/growbuf.h"
#include "match/library.h"

namespace faultline {

// Appends entry `index` of `pack` as one JSON object. False when a scratch
// buffer (from `alloc`) could not be allocated; `out` may then be partial.
bool render_entry_json(const Library &pack, uint32_t index, const Allocator &alloc, Text *out);

}  // namespace faultline
