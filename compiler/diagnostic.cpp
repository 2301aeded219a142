#include "diagnostic.h"

#include <algorithm>
#include <cstdio>

namespace faultline {

std::string Diagnostic::format() const {
  std::string out = file;
  if (line > 0) out += ":" + std::to_string(line);
  if (line > 0 && col > 0) out += ":" + std::to_string(col);
  out += level == kError ? ": error: " : ": warning: ";
  if (!entry.empty()) out += "[" + entry + "] ";
  out += message;
  if (!source_line.empty()) {
    out += "\n    " + source_line;
    if (col > 0) {
      std::string pad;
      // Keep tabs so the caret lines up under the character.
      for (int i = 0; i + 1 < col && i < static_cast<int>(source_line.size()); i++) pad += source_line[i] == '\t' ? '\t' : ' ';
      out += "\n    " + pad + "^";
    }
  }
  return out;
}

bool Diagnostics::has_errors() const { return error_count() > 0; }

size_t Diagnostics::error_count() const {
  return static_cast<size_t>(
      std::count_if(list_.begin(), list_.end(), [](const Diagnostic &d) { return d.level == Diagnostic::kError; }));
}

void Diagnostics::print() const {
  std::vector<const Diagnostic *> sorted;
  for (const auto &d : list_) sorted.push_back(&d);
  std::stable_sort(sorted.begin(), sorted.end(), [](const Diagnostic *a, const Diagnostic *b) {
    return a->file != b->file ? a->file < b->file : a->line < b->line;
  });
  for (const Diagnostic *d : sorted) std::fprintf(stderr, "%s\n", d->format().c_str());
}

}  // namespace faultline
