#include "regex_export.h"

#include <cstdio>
#include <vector>

namespace faultline {

namespace {

using regex::Node;
using regex::NodeKind;

std::string byte_text(int c) {
  if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ' ')
    return std::string(1, static_cast<char>(c));
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", c);
  return buf;
}

std::string bytes_text(regex::ByteSet set) {
  set.reset('\n');
  const size_t n = set.count();
  if (n == 0) return "[^\\x00-\\xff]";  // matches nothing
  if (n == 1)
    for (int c = 0; c < 256; c++)
      if (set.test(c)) return byte_text(c);
  std::string out = "[";
  for (int c = 0; c < 256; c++) {
    if (!set.test(c)) continue;
    int last = c;
    while (last + 1 < 256 && set.test(last + 1)) last++;
    out += byte_text(c);
    if (last > c + 1) out += "-";
    if (last > c) out += byte_text(last);
    c = last;
  }
  return out + "]";
}

std::string text(const Node &n);

std::string atom(const Node &n) {
  const std::string t = text(n);
  if (n.kind == NodeKind::kBytes || n.kind == NodeKind::kGroup || n.kind == NodeKind::kAlt) return t;
  return "(?:" + t + ")";
}

std::string text(const Node &n) {
  switch (n.kind) {
    case NodeKind::kEmpty:
      return "";
    case NodeKind::kBytes:
      return bytes_text(n.bytes);
    case NodeKind::kGroup:
      return "(?:" + text(*n.kids[0]) + ")";
    case NodeKind::kAlt: {
      std::string out = "(?:";
      for (size_t i = 0; i < n.kids.size(); i++) out += (i ? "|" : "") + text(*n.kids[i]);
      return out + ")";
    }
    case NodeKind::kConcat: {
      std::string out;
      for (const auto &k : n.kids) out += k->kind == NodeKind::kAlt ? atom(*k) : text(*k);
      return out;
    }
    case NodeKind::kRepeat: {
      std::string a = atom(*n.kids[0]);
      if (n.min == 0 && n.max == 1) return a + "?";
      if (n.min == 0 && n.max < 0) return a + "*";
      if (n.min == 1 && n.max < 0) return a + "+";
      if (n.max < 0) return a + "{" + std::to_string(n.min) + ",}";
      if (n.min == n.max) return a + "{" + std::to_string(n.min) + "}";
      return a + "{" + std::to_string(n.min) + "," + std::to_string(n.max) + "}";
    }
    case NodeKind::kAssert:
      switch (n.assertion) {
        case regex::AssertKind::kLineStart:
          return "^";
        case regex::AssertKind::kLineEnd:
          return "$";
        case regex::AssertKind::kWordBoundary:
          return "\\b";
        case regex::AssertKind::kNotWordBoundary:
          return "\\B";
      }
  }
  return "";
}

// The top-level sequence, looking through non-capturing and capturing groups.
const Node *unwrap(const Node *n) {
  while (n->kind == NodeKind::kGroup) n = n->kids[0].get();
  return n;
}

bool optional_repeat(const Node *n) {
  n = unwrap(n);
  return n->kind == NodeKind::kRepeat && n->min == 0;
}

// The top-level sequence's items, groups (capturing too) opened: they are
// plain groups in the export, so their items stand in the sequence.
void top_items(const Node *n, std::vector<const Node *> *out) {
  if (n->kind == NodeKind::kGroup) return top_items(n->kids[0].get(), out);
  if (n->kind != NodeKind::kConcat) return out->push_back(n);
  for (const auto &k : n->kids) top_items(k.get(), out);
}

// `.*` (any byte but '\n', any number of times): before '$' it always
// reaches the line's end, so `.*$` holds at any position of a line.
bool rest_of_line(const Node *n) {
  if (n->kind != NodeKind::kRepeat || n->min != 0 || n->max >= 0) return false;
  const Node *k = unwrap(n->kids[0].get());
  if (k->kind != NodeKind::kBytes) return false;
  regex::ByteSet all_but_newline = k->bytes;
  all_but_newline.reset('\n');
  return all_but_newline.count() == 255;
}

bool line_end(const Node *n) { return n->kind == NodeKind::kAssert && n->assertion == regex::AssertKind::kLineEnd; }

}  // namespace

std::string export_regex(const regex::Regex &re) {
  std::vector<const Node *> items;
  top_items(re.root.get(), &items);
  // An unanchored pattern matches a line iff its core does: optional
  // repetitions at the very start or end only lengthen the match, and a
  // final `.*$` always holds (written out, it also trips Vectorscan 5.4,
  // which then reports `^frame #\d+: .*$` on one line in three).
  size_t first = 0, last = items.size();
  while (last >= first + 3 && line_end(items[last - 1]) && rest_of_line(items[last - 2])) last -= 2;
  while (last > first + 1 && optional_repeat(items[last - 1])) last--;
  while (first + 1 < last && optional_repeat(items[first])) first++;
  std::string out;
  for (size_t i = first; i < last; i++) out += items[i]->kind == NodeKind::kAlt ? atom(*items[i]) : text(*items[i]);
  return out;
}

}  // namespace faultline
