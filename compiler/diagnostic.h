// Compiler diagnostics: file:line:col, the entry they concern, and the source
// line with a caret, in the format editors and CI annotators understand.
#pragma once

#include <string>
#include <vector>

namespace faultline {

struct Diagnostic {
  enum Level { kError, kWarning } level = kError;
  std::string file;   // as given on the command line, e.g. signatures/network/x.yaml
  int line = 0;       // 1-based; 0 = whole file
  int col = 0;        // 1-based; 0 = whole line
  std::string entry;  // signature id, when known
  std::string message;
  std::string source_line;  // for the caret, when known

  std::string format() const;
};

class Diagnostics {
 public:
  void error(Diagnostic d) {
    d.level = Diagnostic::kError;
    list_.push_back(std::move(d));
  }
  void warning(Diagnostic d) {
    d.level = Diagnostic::kWarning;
    list_.push_back(std::move(d));
  }
  bool has_errors() const;
  size_t error_count() const;
  const std::vector<Diagnostic> &all() const { return list_; }
  // Prints every diagnostic to stderr, sorted by file and line.
  void print() const;

 private:
  std::vector<Diagnostic> list_;
};

}  // namespace faultline
