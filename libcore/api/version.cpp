#include "faultline.h"

#define FL_STR2(x) #x
#define FL_STR(x) FL_STR2(x)

extern "C" uint32_t fl_version_number(void) { return FL_VERSION_NUMBER; }

extern "C" const char *fl_version_string(void) {
  return FL_STR(FL_VERSION_MAJOR) "." FL_STR(FL_VERSION_MINOR) "." FL_STR(FL_VERSION_PATCH);
}
