/*
 * faultline.h - the public C API of libfaultline.
 *
 * faultline finds the cause of a failed ML training run in its logs. This
 * header is the library's whole public surface: what is not declared here is
 * not API. It compiles as C99 and C++.
 *
 * This release declares the version queries; pack, scanner and report
 * handles follow (see the project's issues).
 */
#ifndef FAULTLINE_H
#define FAULTLINE_H

#include <stdint.h>

#if defined(_WIN32)
#  if defined(FAULTLINE_BUILDING)
#    define FL_API __declspec(dllexport)
#  else
#    define FL_API __declspec(dllimport)
#  endif
#else
#  define FL_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Version of this header. CMake reads these three lines: keep their form. */
#define FL_VERSION_MAJOR 0
#define FL_VERSION_MINOR 1
#define FL_VERSION_PATCH 0
#define FL_VERSION_NUMBER (FL_VERSION_MAJOR * 10000 + FL_VERSION_MINOR * 100 + FL_VERSION_PATCH)

/**
 * Version of the library actually linked, as FL_VERSION_NUMBER computes it.
 * Compare its major (value / 10000) with FL_VERSION_MAJOR at startup.
 *
 * Thread-safety: always safe.
 * Since: 0.1
 */
FL_API uint32_t fl_version_number(void);

/**
 * Version of the library as text, e.g. "0.1.0". Static; never NULL, never freed.
 *
 * Thread-safety: always safe.
 * Since: 0.1
 */
FL_API const char *fl_version_string(void);

#ifdef __cplusplus
}
#endif

#endif /* FAULTLINE_H */
