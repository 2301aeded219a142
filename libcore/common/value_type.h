// What a value read from a log may be where it becomes part of something a
// person runs or an admin tool reads: a fix command's placeholder, the host
// in a summary line, a Slurm AdminComment, a metric label.
//
// Logs are written by whoever runs the job. Each type admits only characters
// that no shell, no quoting context ('...', "...", unquoted) and no string
// literal of an interpreter called from a command gives a meaning to, and no
// leading '-' or '~' (an option, a home directory). A value that does not fit
// is not placed at all: the report shows the placeholder instead.
#pragma once

#include <cstddef>
#include <cstdint>

namespace faultline {

enum class ValueType : uint8_t {
  kUnknown,     // an unknown type name: nothing fits
  kNumber,      // 0-9, at most 19 digits (ranks, pids, ports, GPU indexes)
  kSize,        // a number with an optional unit: 40GiB, 1.5G, 512MB
  kHostname,    // a host name or address: node17, 10.0.0.4, fe80::1%ib0
  kIdentifier,  // a name: a Python module, a model id org/name, a PCI id, a version, a job id
  kPath,        // a file system path: no blanks, quotes, shell or glob characters
  kText,        // free text: shown in reports, never placed into a command
};

// The type a template names ("{path:path}"); kUnknown for any other name.
ValueType value_type_named(const char *name, size_t len);
const char *value_type_name(ValueType t);

// Whether `v` (n bytes) is a value of type `t` (kText and kUnknown: never).
bool value_fits(ValueType t, const char *v, size_t n);

}  // namespace faultline
