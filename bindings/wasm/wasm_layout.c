/* The layouts faultline-api.js reads and writes by hand in the wasm heap
   (wasm32: 4-byte pointers and size_t). If the header changes them, this
   file stops the build instead of letting the JS read the wrong bytes. */
#include <stddef.h>

#include "faultline.h"

_Static_assert(sizeof(void *) == 4 && sizeof(size_t) == 4, "faultline-api.js assumes wasm32");

/* fl_diagnoser_options, written by Pack.diagnoser({maxLineBytes}). */
_Static_assert(sizeof(fl_diagnoser_options) == 20, "fl_diagnoser_options size");
_Static_assert(offsetof(fl_diagnoser_options, max_line_bytes) == 8, "fl_diagnoser_options.max_line_bytes");
_Static_assert(offsetof(fl_diagnoser_options, allocator) == 16, "fl_diagnoser_options.allocator");

/* fl_diagnosis, read by Diagnoser.result(). */
_Static_assert(sizeof(fl_diagnosis) == 744, "fl_diagnosis size");
_Static_assert(offsetof(fl_diagnosis, verdict) == 4, "fl_diagnosis.verdict");
_Static_assert(offsetof(fl_diagnosis, entry) == 8, "fl_diagnosis.entry");
_Static_assert(offsetof(fl_diagnosis, retry) == 12, "fl_diagnosis.retry");
_Static_assert(offsetof(fl_diagnosis, rank) == 16, "fl_diagnosis.rank");
_Static_assert(offsetof(fl_diagnosis, confidence) == 24, "fl_diagnosis.confidence");
_Static_assert(offsetof(fl_diagnosis, action) == 32, "fl_diagnosis.action");
_Static_assert(offsetof(fl_diagnosis, host) == 64, "fl_diagnosis.host");
_Static_assert(offsetof(fl_diagnosis, fingerprint) == 192, "fl_diagnosis.fingerprint");
_Static_assert(offsetof(fl_diagnosis, template_text) == 224, "fl_diagnosis.template_text");
_Static_assert(offsetof(fl_diagnosis, source) == 480, "fl_diagnosis.source");
_Static_assert(offsetof(fl_diagnosis, line) == 736, "fl_diagnosis.line");
