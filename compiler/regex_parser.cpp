// Recursive-descent parser for the signature regex dialect. Every construct
// outside the dialect is refused with the offset of the offending character,
// so flc can point a caret at it.
#include "regex_parser.h"

#include <set>

namespace faultline::regex {
namespace {

bool is_word(unsigned c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }

ByteSet digit_set() {
  ByteSet s;
  for (unsigned c = '0'; c <= '9'; c++) s.set(c);
  return s;
}
ByteSet word_set() {
  ByteSet s;
  for (unsigned c = 0; c < 256; c++)
    if (is_word(c)) s.set(c);
  return s;
}
ByteSet space_set() {
  ByteSet s;
  for (unsigned c : {' ', '\t', '\r', '\f', '\v'}) s.set(c);
  return s;
}
// Lines never contain '\n' (it separates them), so negations leave it out:
// the DFA uses '\n' as its end-of-line marker.
ByteSet negate(const ByteSet &s) {
  ByteSet n = ~s;
  n.reset('\n');
  return n;
}
ByteSet fold_case(ByteSet s) {
  for (unsigned c = 'a'; c <= 'z'; c++) {
    unsigned u = c - 'a' + 'A';
    if (s.test(c) || s.test(u)) {
      s.set(c);
      s.set(u);
    }
  }
  return s;
}

class Parser {
 public:
  explicit Parser(std::string_view p) : p_(p) {}

  Regex run() {
    Regex re;
    re.root = parse_alt(false);
    if (i_ < p_.size()) fail(i_, "unbalanced ')': no group is open");
    re.capture_names = std::move(names_);
    return re;
  }

 private:
  std::string_view p_;
  size_t i_ = 0;
  bool icase_ = false;
  std::vector<std::string> names_;

  [[noreturn]] void fail(size_t at, const std::string &msg) { throw SyntaxError(static_cast<uint32_t>(at), msg); }
  bool eof() const { return i_ >= p_.size(); }
  unsigned char peek(size_t k = 0) const { return i_ + k < p_.size() ? static_cast<unsigned char>(p_[i_ + k]) : 0; }
  bool looking_at(std::string_view s) const { return p_.substr(i_, s.size()) == s; }

  static NodePtr make(NodeKind k, size_t at) {
    auto n = std::make_unique<Node>();
    n->kind = k;
    n->pos = static_cast<uint32_t>(at);
    return n;
  }
  NodePtr make_bytes(ByteSet s, size_t at) {
    auto n = make(NodeKind::kBytes, at);
    n->bytes = icase_ ? fold_case(s) : s;
    return n;
  }

  // alt := concat ('|' concat)*. `in_group` says whether ')' may end it.
  NodePtr parse_alt(bool in_group) {
    size_t start = i_;
    std::vector<NodePtr> alts;
    alts.push_back(parse_concat(in_group));
    while (!eof() && peek() == '|') {
      i_++;
      alts.push_back(parse_concat(in_group));
    }
    if (alts.size() == 1) return std::move(alts[0]);
    auto n = make(NodeKind::kAlt, start);
    n->kids = std::move(alts);
    return n;
  }

  NodePtr parse_concat(bool in_group) {
    size_t start = i_;
    std::vector<NodePtr> items;
    while (!eof() && peek() != '|') {
      if (peek() == ')') {
        if (!in_group) fail(i_, "unbalanced ')': no group is open");
        break;
      }
      NodePtr atom = parse_atom();
      if (!atom) continue;  // a flag group such as (?i) changes state only
      items.push_back(parse_quantifiers(std::move(atom)));
    }
    if (items.empty()) return make(NodeKind::kEmpty, start);
    if (items.size() == 1) return std::move(items[0]);
    auto n = make(NodeKind::kConcat, start);
    n->kids = std::move(items);
    return n;
  }

  bool parse_count(int *out) {
    if (!(peek() >= '0' && peek() <= '9')) return false;
    size_t at = i_;
    long v = 0;
    while (peek() >= '0' && peek() <= '9') {
      v = v * 10 + (peek() - '0');
      if (v > kMaxRepeatCount) fail(at, "repetition count above " + std::to_string(kMaxRepeatCount));
      i_++;
    }
    *out = static_cast<int>(v);
    return true;
  }

  NodePtr parse_quantifiers(NodePtr atom) {
    bool quantified = false;
    while (!eof()) {
      size_t at = i_;
      int lo, hi;
      unsigned char c = peek();
      if (c == '*') {
        lo = 0, hi = -1, i_++;
      } else if (c == '+') {
        lo = 1, hi = -1, i_++;
      } else if (c == '?') {
        lo = 0, hi = 1, i_++;
      } else if (c == '{') {
        i_++;
        if (!parse_count(&lo)) fail(at, "'{' must start a repetition {m}, {m,} or {m,n}; write \\{ for a literal brace");
        hi = lo;
        if (peek() == ',') {
          i_++;
          hi = -1;
          if (peek() != '}' && !parse_count(&hi)) fail(i_, "expected a number or '}' in repetition");
        }
        if (peek() != '}') fail(i_, "expected '}' to close the repetition");
        i_++;
        if (hi >= 0 && hi < lo) fail(at, "repetition {m,n} with n smaller than m");
      } else {
        break;
      }
      if (quantified) fail(at, "nested quantifier: put the repeated part in a group (?:...)");
      if (atom->kind == NodeKind::kAssert) fail(at, "quantifier after an anchor or boundary repeats nothing");
      quantified = true;
      bool greedy = true;
      if (peek() == '?') {
        greedy = false;
        i_++;
      } else if (peek() == '+') {
        fail(i_, "possessive quantifiers are not supported");
      }
      auto r = make(NodeKind::kRepeat, at);
      r->min = lo;
      r->max = hi;
      r->greedy = greedy;
      r->kids.push_back(std::move(atom));
      atom = std::move(r);
    }
    return atom;
  }

  NodePtr parse_atom() {
    size_t at = i_;
    unsigned char c = peek();
    switch (c) {
      case '(':
        return parse_group();
      case '[':
        return parse_class();
      case '.': {
        i_++;
        ByteSet s;
        s.set();
        s.reset('\n');
        auto n = make(NodeKind::kBytes, at);
        n->bytes = s;
        return n;
      }
      case '^':
      case '$': {
        i_++;
        auto n = make(NodeKind::kAssert, at);
        n->assertion = c == '^' ? AssertKind::kLineStart : AssertKind::kLineEnd;
        return n;
      }
      case '*':
      case '+':
      case '?':
        fail(at, "nothing to repeat before this quantifier");
      case '{':
        fail(at, "nothing to repeat before '{'; write \\{ for a literal brace");
      case '}':
        fail(at, "unmatched '}'; write \\} for a literal brace");
      case ']':
        fail(at, "unmatched ']'; write \\] for a literal bracket");
      case '\\':
        return parse_escape();
      case '\n':
        fail(at, "a line never contains a newline; use $ for the end of the line");
      default: {
        i_++;
        ByteSet s;
        s.set(c);
        return make_bytes(s, at);
      }
    }
  }

  NodePtr parse_group() {
    size_t at = i_;
    i_++;  // '('
    int capture = 0;
    bool saved_icase = icase_;
    if (peek() == '?') {
      if (looking_at("?:")) {
        i_ += 2;
      } else if (looking_at("?i)")) {
        // Flag for the rest of the enclosing group: no node of its own.
        i_ += 3;
        icase_ = true;
        return nullptr;
      } else if (looking_at("?i:")) {
        i_ += 3;
        icase_ = true;
      } else if (looking_at("?=") || looking_at("?!") || looking_at("?<=") || looking_at("?<!")) {
        fail(at, "lookaround is not supported (matching is a DFA; use a second pattern with condition 'all')");
      } else if (looking_at("?>")) {
        fail(at, "atomic groups are not supported");
      } else if (looking_at("?P<")) {
        fail(at, "write named captures as (?<name>...)");
      } else if (looking_at("?<")) {
        i_ += 2;
        size_t name_at = i_;
        std::string name;
        while (!eof() && peek() != '>') name.push_back(static_cast<char>(p_[i_++]));
        if (eof()) fail(name_at, "unterminated capture name: expected '>'");
        i_++;
        bool ok = !name.empty() && ((name[0] >= 'a' && name[0] <= 'z') || name[0] == '_');
        for (char ch : name) ok = ok && ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_');
        if (!ok) fail(name_at, "capture name must match [a-z_][a-z0-9_]*");
        for (const auto &n : names_)
          if (n == name) fail(name_at, "duplicate capture name '" + name + "'");
        names_.push_back(name);
        capture = static_cast<int>(names_.size());
      } else {
        fail(at + 1, "unsupported group syntax after '(': only (?:, (?<name>, (?i) and (?i: are in the dialect");
      }
    }
    NodePtr inner = parse_alt(true);
    icase_ = saved_icase;
    if (peek() != ')') fail(at, "unbalanced '(': missing ')'");
    i_++;
    auto g = make(NodeKind::kGroup, at);
    g->capture = capture;
    g->kids.push_back(std::move(inner));
    return g;
  }

  // Escapes valid both inside and outside classes that stand for a set.
  bool class_escape(unsigned char e, ByteSet *out) {
    switch (e) {
      case 'd':
        *out = digit_set();
        return true;
      case 'D':
        *out = negate(digit_set());
        return true;
      case 'w':
        *out = word_set();
        return true;
      case 'W':
        *out = negate(word_set());
        return true;
      case 's':
        *out = space_set();
        return true;
      case 'S':
        *out = negate(space_set());
        return true;
      default:
        return false;
    }
  }

  // Single-byte escapes; returns -1 if `e` is not one. Reads \xHH itself.
  int char_escape(size_t at, unsigned char e) {
    switch (e) {
      case 't':
        return '\t';
      case 'n':
        fail(at, "a line never contains \\n (lines are split on it); use $ for the end of the line");
      case 'r':
        return '\r';
      case 'f':
        return '\f';
      case 'v':
        return '\v';
      case 'x': {
        auto hex = [](unsigned char h) -> int {
          if (h >= '0' && h <= '9') return h - '0';
          if (h >= 'a' && h <= 'f') return h - 'a' + 10;
          if (h >= 'A' && h <= 'F') return h - 'A' + 10;
          return -1;
        };
        int h1 = hex(peek()), h2 = hex(peek(1));
        if (h1 < 0 || h2 < 0) fail(at, "\\x needs exactly two hex digits");
        i_ += 2;
        if (h1 * 16 + h2 == '\n') fail(at, "a line never contains \\x0a; use $ for the end of the line");
        return h1 * 16 + h2;
      }
      default:
        if (e >= '1' && e <= '9') fail(at, "backreferences are not supported");
        if (e == 'k') fail(at, "backreferences are not supported");
        if (e == 'p' || e == 'P') fail(at, "Unicode classes are not supported");
        if (e < 0x80 && !is_word(e) && e > ' ') return e;  // escaped punctuation
        return -1;
    }
  }

  NodePtr parse_escape() {
    size_t at = i_;
    i_++;
    if (eof()) fail(at, "trailing backslash");
    unsigned char e = peek();
    i_++;
    ByteSet s;
    if (class_escape(e, &s)) return make_bytes(s, at);
    if (e == 'b' || e == 'B') {
      auto n = make(NodeKind::kAssert, at);
      n->assertion = e == 'b' ? AssertKind::kWordBoundary : AssertKind::kNotWordBoundary;
      return n;
    }
    int c = char_escape(at, e);
    if (c < 0) fail(at, std::string("unknown escape \\") + static_cast<char>(e));
    s.set(static_cast<size_t>(c));
    return make_bytes(s, at);
  }

  // One class member: a byte, or (through *set) a class escape.
  int class_atom(ByteSet *set) {
    size_t at = i_;
    unsigned char c = peek();
    if (c == '\\') {
      i_++;
      if (eof()) fail(at, "trailing backslash");
      unsigned char e = peek();
      i_++;
      if (class_escape(e, set)) return -2;
      if (e == 'b') fail(at, "\\b inside a class is ambiguous; write \\x08");
      int v = char_escape(at, e);
      if (v < 0) fail(at, std::string("unknown escape \\") + static_cast<char>(e));
      return v;
    }
    if (c == '[' && peek(1) == ':') fail(at, "POSIX classes like [:alpha:] are not supported; write the ranges");
    if (c == '\n') fail(at, "a line never contains a newline; use $ for the end of the line");
    i_++;
    return c;
  }

  NodePtr parse_class() {
    size_t at = i_;
    i_++;  // '['
    bool negated = false;
    if (peek() == '^') {
      negated = true;
      i_++;
    }
    ByteSet s;
    bool first = true;
    for (;;) {
      if (eof()) fail(at, "unterminated class: missing ']'");
      if (peek() == ']' && !first) break;
      first = false;
      size_t member_at = i_;
      ByteSet esc;
      int lo = class_atom(&esc);
      if (lo == -2) {
        s |= esc;
        continue;
      }
      if (peek() == '-' && peek(1) != ']' && i_ + 1 < p_.size()) {
        i_++;
        ByteSet esc2;
        int hi = class_atom(&esc2);
        if (hi == -2) fail(member_at, "a class escape cannot end a range");
        if (hi < lo) fail(member_at, "range out of order");
        for (int c = lo; c <= hi; c++) s.set(static_cast<size_t>(c));
      } else {
        s.set(static_cast<size_t>(lo));
      }
    }
    i_++;  // ']'
    if (icase_) s = fold_case(s);
    if (negated) s = negate(s);
    s.reset('\n');
    if (s.none()) fail(at, "empty class matches nothing");
    auto n = make(NodeKind::kBytes, at);
    n->bytes = s;  // already folded: fold before negation, as RE2 does
    return n;
  }
};

}  // namespace

Regex parse(std::string_view pattern) {
  Parser parser(pattern);
  return parser.run();
}

int min_length(const Node &n) {
  switch (n.kind) {
    case NodeKind::kEmpty:
    case NodeKind::kAssert:
      return 0;
    case NodeKind::kBytes:
      return 1;
    case NodeKind::kGroup:
      return min_length(*n.kids[0]);
    case NodeKind::kRepeat:
      return n.min * min_length(*n.kids[0]);
    case NodeKind::kConcat: {
      int sum = 0;
      for (const auto &k : n.kids) sum += min_length(*k);
      return sum;
    }
    case NodeKind::kAlt: {
      int best = -1;
      for (const auto &k : n.kids) {
        int m = min_length(*k);
        if (best < 0 || m < best) best = m;
      }
      return best < 0 ? 0 : best;
    }
  }
  return 0;
}

bool nullable(const Node &n) { return min_length(n) == 0; }

}  // namespace faultline::regex
