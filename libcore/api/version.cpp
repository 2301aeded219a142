#include "common/version.h"

extern "C" uint32_t fl_version_number(void) { return FL_VERSION_NUMBER; }

extern "C" const char *fl_version_string(void) { return FL__VERSION_TEXT; }
