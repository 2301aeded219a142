#include "pieces.h"

#include <algorithm>
#include <cstring>

namespace faultline {
namespace {

using regex::AssertKind;
using regex::Node;
using regex::NodeKind;

bool has_wide_class(const Node &n, const PieceOptions &opt) {
  if (n.kind == NodeKind::kBytes) return static_cast<int>(n.bytes.count()) > opt.wide_class;
  return std::any_of(n.kids.begin(), n.kids.end(), [&](const auto &k) { return has_wide_class(*k, opt); });
}

// A gap is what would make the DFA union large: a wide class repeated (the
// DFA must track every position where an overlapping literal could start),
// or anything with such a repetition inside.
bool is_gap(const Node &n, const PieceOptions &opt) {
  switch (n.kind) {
    case NodeKind::kRepeat: {
      const Node &body = *n.kids[0];
      bool repeats = n.max < 0 || n.max > 1;
      if (repeats && has_wide_class(body, opt)) return true;
      return is_gap(body, opt);
    }
    case NodeKind::kConcat:
    case NodeKind::kAlt:
    case NodeKind::kGroup:
      return std::any_of(n.kids.begin(), n.kids.end(), [&](const auto &k) { return is_gap(*k, opt); });
    default:
      return false;
  }
}

bool has_assert(const Node &n) {
  if (n.kind == NodeKind::kAssert) return true;
  return std::any_of(n.kids.begin(), n.kids.end(), [](const auto &k) { return has_assert(*k); });
}

// Top-level sequence of the pattern, looking through groups: captures do not
// matter to the DFA.
void flatten(const Node &n, std::vector<const Node *> *out) {
  if (n.kind == NodeKind::kConcat) {
    for (const auto &k : n.kids) flatten(*k, out);
  } else if (n.kind == NodeKind::kGroup) {
    flatten(*n.kids[0], out);
  } else {
    out->push_back(&n);
  }
}

std::string bytes_to_ragel(const regex::ByteSet &s) {
  std::string out;
  int parts = 0;
  for (int b = 0; b < 256;) {
    if (!s.test(static_cast<size_t>(b))) {
      b++;
      continue;
    }
    int e = b;
    while (e + 1 < 256 && s.test(static_cast<size_t>(e + 1))) e++;
    if (parts++) out += " | ";
    out += std::to_string(b);
    if (e > b) out += ".." + std::to_string(e);
    b = e + 1;
  }
  return parts > 1 ? "(" + out + ")" : out;
}

std::string node_to_ragel(const Node &n) {
  switch (n.kind) {
    case NodeKind::kEmpty:
      return "zlen";
    // Zero-width assertions inside a piece are dropped: the piece then
    // matches a superset, which is all a prefilter needs.
    case NodeKind::kAssert:
      return "zlen";
    case NodeKind::kBytes:
      return bytes_to_ragel(n.bytes);
    case NodeKind::kGroup:
      return node_to_ragel(*n.kids[0]);
    case NodeKind::kConcat: {
      std::string out = "(";
      for (size_t i = 0; i < n.kids.size(); i++) out += (i ? " . " : "") + node_to_ragel(*n.kids[i]);
      return out + ")";
    }
    case NodeKind::kAlt: {
      std::string out = "(";
      for (size_t i = 0; i < n.kids.size(); i++) out += (i ? " | " : "") + node_to_ragel(*n.kids[i]);
      return out + ")";
    }
    case NodeKind::kRepeat: {
      // Counted repetition is expanded here rather than written as Ragel's
      // {n,m}: Ragel 6.10 builds wrong machines for some bounded repetitions
      // (e.g. (65* . 98){1,3} . 120 accepts "bAx"), which the differential
      // test against RE2 caught. Copies, stars and (x | zlen) are sound.
      std::string body = "(" + node_to_ragel(*n.kids[0]) + ")";
      std::string out;
      for (int i = 0; i < n.min; i++) out += (out.empty() ? "" : " . ") + body;
      if (n.max < 0) {
        out += (out.empty() ? "" : " . ") + body + "*";
      } else {
        std::string optional;  // (body . (body . (...) | zlen) | zlen)
        for (int i = n.min; i < n.max; i++) optional = "(" + body + (optional.empty() ? "" : " . " + optional) + " | zlen)";
        if (!optional.empty()) out += (out.empty() ? "" : " . ") + optional;
      }
      return out.empty() ? "zlen" : "(" + out + ")";
    }
  }
  return "zlen";
}

int items_min_bytes(const std::vector<const Node *> &items) {
  int sum = 0;
  for (const Node *n : items) sum += regex::min_length(*n);
  return sum;
}

}  // namespace

PatternPieces split_pattern(const regex::Regex &re, const PieceOptions &opt) {
  std::vector<const Node *> items;
  flatten(*re.root, &items);

  std::vector<Piece> pieces;
  bool approximated = false, anchored = false;
  Piece cur;
  auto close = [&]() {
    if (!cur.items.empty() || cur.anchored_end) pieces.push_back(std::move(cur));
    cur = Piece{};
  };
  for (size_t i = 0; i < items.size(); i++) {
    const Node &n = *items[i];
    if (is_gap(n, opt)) {
      close();
      approximated = true;
      continue;
    }
    if (n.kind == NodeKind::kAssert) {
      // "^" means the start of the message, which stands behind whatever
      // log prefixes the scanner peels off (LineMatcher::peel_prefixes): the
      // DFA looks for the piece anywhere and the program decides.
      if (n.assertion == AssertKind::kLineStart && i == 0) {
        anchored = true;
        approximated = true;
        continue;
      }
      if (n.assertion == AssertKind::kLineEnd && i + 1 == items.size()) {
        cur.anchored_end = true;
        continue;
      }
      approximated = true;  // dropped: see node_to_ragel
      continue;
    }
    if (has_assert(n)) approximated = true;
    cur.items.push_back(&n);
  }
  close();

  for (Piece &p : pieces) p.min_bytes = items_min_bytes(p.items);
  int best = 0;
  for (const Piece &p : pieces) best = std::max(best, p.min_bytes);
  if (best == 0) throw NoPieces("pattern can match without any specific text; it needs a literal of a few characters");

  PatternPieces out;
  out.weak = best < opt.min_piece_bytes;
  // Weak pieces would fire on most lines; they stay out of the DFA unless
  // nothing stronger exists. The program still checks them.
  for (Piece &p : pieces) {
    bool keep = out.weak ? p.min_bytes == best : p.min_bytes >= opt.min_piece_bytes;
    if (keep)
      out.pieces.push_back(std::move(p));
    else
      approximated = true;
    if (out.weak && keep) break;  // one piece is enough when all are weak
  }
  out.exact = !approximated && out.pieces.size() == 1;
  out.anchored = anchored;
  return out;
}

std::string piece_to_ragel(const Piece &piece) {
  std::string out;
  for (const Node *n : piece.items) out += (out.empty() ? "" : " . ") + node_to_ragel(*n);
  if (piece.anchored_end) out += (out.empty() ? "" : " . ") + std::string("10");
  return out.empty() ? "zlen" : "(" + out + ")";
}

}  // namespace faultline
