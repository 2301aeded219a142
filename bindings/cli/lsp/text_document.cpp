#include "text_document.h"

#include <algorithm>

namespace lsp {

namespace {

// Length of the UTF-8 sequence starting with byte `b` (1 for an invalid lead).
size_t sequence_length(unsigned char b) {
  if (b >= 0xf0 && b <= 0xf4) return 4;
  if (b >= 0xe0) return b <= 0xef ? 3 : 1;
  if (b >= 0xc2) return 2;
  return 1;
}

// Whether [p, p + n) holds a whole sequence: the lead and its continuation bytes.
bool whole_sequence(const unsigned char *p, size_t avail, size_t n) {
  if (n > avail) return false;
  for (size_t i = 1; i < n; i++)
    if ((p[i] & 0xc0) != 0x80) return false;
  return true;
}

}  // namespace

uint64_t utf16_length(const char *text, size_t n) {
  const auto *p = reinterpret_cast<const unsigned char *>(text);
  uint64_t units = 0;
  for (size_t i = 0; i < n;) {
    size_t len = sequence_length(p[i]);
    if (!whole_sequence(p + i, n - i, len)) len = 1;
    units += len == 4 ? 2 : 1;
    i += len;
  }
  return units;
}

void TextDocument::set_text(std::string text) {
  text_ = std::move(text);
  starts_valid_ = false;
}

const std::vector<size_t> &TextDocument::line_starts() const {
  if (starts_valid_) return starts_;
  starts_.assign(1, 0);
  add_line_starts(0);
  starts_valid_ = true;
  return starts_;
}

void TextDocument::add_line_starts(size_t from) const {
  const size_t n = text_.size();
  for (size_t i = from; i < n; i++) {
    const char c = text_[i];
    if (c == '\n' || (c == '\r' && !(i + 1 < n && text_[i + 1] == '\n'))) starts_.push_back(i + 1);
  }
}

uint64_t TextDocument::line_count() const { return line_starts().size(); }

void TextDocument::line_span(uint64_t line, size_t *begin, size_t *end) const {
  const std::vector<size_t> &starts = line_starts();
  if (line >= starts.size()) {
    *begin = *end = text_.size();
    return;
  }
  *begin = starts[line];
  size_t e = line + 1 < starts.size() ? starts[line + 1] : text_.size();
  if (e > *begin && text_[e - 1] == '\n') e--;
  if (e > *begin && text_[e - 1] == '\r') e--;
  *end = e;
}

size_t TextDocument::offset_of(Position pos) const {
  size_t begin = 0, end = 0;
  line_span(pos.line, &begin, &end);
  if (pos.line >= line_count()) return text_.size();
  const auto *p = reinterpret_cast<const unsigned char *>(text_.data());
  uint64_t units = 0;
  size_t i = begin;
  while (i < end && units < pos.character) {
    size_t len = sequence_length(p[i]);
    if (!whole_sequence(p + i, end - i, len)) len = 1;
    units += len == 4 ? 2 : 1;
    i += len;
  }
  return i;
}

bool TextDocument::replace(Position start, Position end, const std::string &with) {
  const size_t a = offset_of(start), b = offset_of(end);
  if (a > b) return false;
  const size_t old_size = text_.size();
  text_.replace(a, b - a, with);
  if (a == old_size && starts_valid_) {
    // Text added at the end (a growing log): the line index grows with it.
    // Its last old byte is looked at again: a '\r' there may now be half of "\r\n".
    const size_t from = old_size ? old_size - 1 : 0;
    while (starts_.size() > 1 && starts_.back() > from) starts_.pop_back();
    add_line_starts(from);
  } else {
    starts_valid_ = false;
  }
  return true;
}

std::string TextDocument::line_text(uint64_t line) const {
  size_t begin = 0, end = 0;
  line_span(line, &begin, &end);
  return text_.substr(begin, end - begin);
}

uint64_t TextDocument::line_utf16_length(uint64_t line) const {
  size_t begin = 0, end = 0;
  line_span(line, &begin, &end);
  return utf16_length(text_.data() + begin, end - begin);
}

}  // namespace lsp
