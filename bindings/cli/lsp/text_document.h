// An open document's text and LSP positions over it: 0-based lines ended by
// "\n", "\r\n" or a bare "\r" (as LSP and the scanner both count them) and
// UTF-16 columns. The text is bytes as the client sent them; invalid UTF-8
// counts one column per byte.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace lsp {

struct Position {
  uint64_t line = 0;
  uint64_t character = 0;  // UTF-16 code units
};

class TextDocument {
 public:
  const std::string &text() const { return text_; }
  void set_text(std::string text);
  size_t size() const { return text_.size(); }
  // Frees the text (a document over the size limit is not kept).
  void clear() { set_text(std::string()); }
  // Replaces [start, end) with `with`; positions past a line's end mean its
  // end, past the last line the document's end (as LSP asks). False when
  // start is after end.
  bool replace(Position start, Position end, const std::string &with);
  // The byte offset of a position, clamped as above.
  size_t offset_of(Position p) const;
  uint64_t line_count() const;
  // The line's bytes without its line break ("" past the end).
  std::string line_text(uint64_t line) const;
  // The line's length in UTF-16 code units.
  uint64_t line_utf16_length(uint64_t line) const;

 private:
  const std::vector<size_t> &line_starts() const;
  // Appends the starts of the lines that begin after byte `from` (their breaks at `from` or later).
  void add_line_starts(size_t from) const;
  // [begin, end) of the line's text, without its break.
  void line_span(uint64_t line, size_t *begin, size_t *end) const;

  std::string text_;
  mutable std::vector<size_t> starts_;  // offsets of each line's first byte, built on demand
  mutable bool starts_valid_ = false;
};

// UTF-16 code units of a UTF-8 byte range (a 4-byte sequence is two).
uint64_t utf16_length(const char *p, size_t n);

}  // namespace lsp
