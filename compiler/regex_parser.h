// Parser for the signature regex dialect (documented in signatures/README.md).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "common/limits.h"
#include "regex_ast.h"

namespace faultline::regex {

// Thrown for a pattern outside the dialect; `pos` is the byte offset of the
// offending character in the pattern text.
struct SyntaxError : std::runtime_error {
  SyntaxError(uint32_t at, const std::string &what) : std::runtime_error(what), pos(at) {}
  uint32_t pos;
};

// Upper bound of {m,n} counts; larger counts blow up programs and DFAs.

Regex parse(std::string_view pattern);

}  // namespace faultline::regex
