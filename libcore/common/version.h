// The library's version as text, from the numbers of include/faultline.h
// (the one place it is stated): fl_version_string() returns it, flc records
// "flc <version>" in every pack it writes.
#pragma once

#include "faultline.h"

#define FL__STR2(x) #x
#define FL__STR(x) FL__STR2(x)
#define FL__VERSION_TEXT FL__STR(FL_VERSION_MAJOR) "." FL__STR(FL_VERSION_MINOR) "." FL__STR(FL_VERSION_PATCH)
