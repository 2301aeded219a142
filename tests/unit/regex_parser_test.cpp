// The dialect: every construct it accepts, and every construct it refuses
// with the position of the offending character.
#include "regex_parser.h"

#include <doctest/doctest.h>

#include <string>

using namespace faultline::regex;

namespace {

// Position and message of the SyntaxError `pattern` raises.
std::pair<int, std::string> refusal(const std::string &pattern) {
  try {
    parse(pattern);
  } catch (const SyntaxError &e) {
    return {static_cast<int>(e.pos), e.what()};
  }
  return {-1, ""};
}

const Node &only_kid(const Node &n) { return *n.kids.at(0); }

}  // namespace

TEST_CASE("regex: literals become single-byte sets in a concatenation") {
  Regex re = parse("ab");
  REQUIRE(re.root->kind == NodeKind::kConcat);
  REQUIRE(re.root->kids.size() == 2);
  CHECK(re.root->kids[0]->bytes.count() == 1);
  CHECK(re.root->kids[0]->bytes.test('a'));
  CHECK(re.root->kids[1]->bytes.test('b'));
}

TEST_CASE("regex: dot matches every byte but the line end") {
  Regex re = parse(".");
  CHECK(re.root->bytes.count() == 255);
  CHECK_FALSE(re.root->bytes.test('\n'));
  CHECK(re.root->bytes.test(0));
  CHECK(re.root->bytes.test(0xff));
}

TEST_CASE("regex: classes, ranges, negation and literal edge members") {
  SUBCASE("range") {
    Regex re = parse("[a-c]");
    CHECK(re.root->bytes.count() == 3);
  }
  SUBCASE("negated class excludes line end") {
    Regex re = parse("[^a]");
    CHECK(re.root->bytes.count() == 254);
    CHECK_FALSE(re.root->bytes.test('a'));
  }
  SUBCASE("] first and - last are literal") {
    Regex re = parse("[]a-]");
    CHECK(re.root->bytes.test(']'));
    CHECK(re.root->bytes.test('a'));
    CHECK(re.root->bytes.test('-'));
    CHECK(re.root->bytes.count() == 3);
  }
  SUBCASE("class escapes inside classes") {
    Regex re = parse("[\\d_]");
    CHECK(re.root->bytes.count() == 11);
  }
  SUBCASE("escaped bracket and hex") {
    Regex re = parse("[\\]\\x41]");
    CHECK(re.root->bytes.test(']'));
    CHECK(re.root->bytes.test('A'));
  }
}

TEST_CASE("regex: shorthand classes") {
  CHECK(parse("\\d").root->bytes.count() == 10);
  CHECK(parse("\\w").root->bytes.count() == 63);
  CHECK(parse("\\s").root->bytes.count() == 5);
  CHECK(parse("\\D").root->bytes.count() == 255 - 10);
  CHECK(parse("\\W").root->bytes.count() == 255 - 63);
  CHECK(parse("\\S").root->bytes.count() == 255 - 5);
  CHECK(parse("\\s").root->bytes.test('\v'));
}

TEST_CASE("regex: character escapes") {
  CHECK(parse("\\t").root->bytes.test('\t'));
  CHECK(parse("\\r").root->bytes.test('\r'));
  CHECK(parse("\\f").root->bytes.test('\f'));
  CHECK(parse("\\v").root->bytes.test('\v'));
  CHECK(parse("\\x7f").root->bytes.test(0x7f));
  CHECK(parse("\\.").root->bytes.test('.'));
  CHECK(parse("\\(").root->bytes.test('('));
  CHECK(parse("\\{").root->bytes.test('{'));
  CHECK(parse("\\$").root->bytes.test('$'));
}

TEST_CASE("regex: groups, named captures and alternation") {
  Regex re = parse("(?:a|b)(?<size>\\d+)(?<unit>[GM]iB)");
  CHECK(re.capture_names == std::vector<std::string>{"size", "unit"});
  REQUIRE(re.root->kind == NodeKind::kConcat);
  const Node &g0 = *re.root->kids[0];
  CHECK(g0.kind == NodeKind::kGroup);
  CHECK(g0.capture == 0);
  CHECK(only_kid(g0).kind == NodeKind::kAlt);
  CHECK(re.root->kids[1]->capture == 1);
  CHECK(re.root->kids[2]->capture == 2);
}

TEST_CASE("regex: plain parentheses group without capturing") {
  Regex re = parse("(ab)+");
  CHECK(re.capture_names.empty());
  CHECK(re.root->kind == NodeKind::kRepeat);
}

TEST_CASE("regex: quantifiers") {
  auto rep = [](const char *p) {
    Regex re = parse(p);
    REQUIRE(re.root->kind == NodeKind::kRepeat);
    return std::tuple<int, int, bool>(re.root->min, re.root->max, re.root->greedy);
  };
  CHECK(rep("a*") == std::tuple<int, int, bool>(0, -1, true));
  CHECK(rep("a+") == std::tuple<int, int, bool>(1, -1, true));
  CHECK(rep("a?") == std::tuple<int, int, bool>(0, 1, true));
  CHECK(rep("a{3}") == std::tuple<int, int, bool>(3, 3, true));
  CHECK(rep("a{2,}") == std::tuple<int, int, bool>(2, -1, true));
  CHECK(rep("a{2,5}") == std::tuple<int, int, bool>(2, 5, true));
  CHECK(rep("a*?") == std::tuple<int, int, bool>(0, -1, false));
  CHECK(rep("a{1,2}?") == std::tuple<int, int, bool>(1, 2, false));
}

TEST_CASE("regex: case-insensitive flag folds ASCII letters to the group's end") {
  Regex re = parse("a(?i)b[c-d]\\d");
  REQUIRE(re.root->kind == NodeKind::kConcat);
  CHECK(re.root->kids[0]->bytes.count() == 1);  // before the flag
  CHECK(re.root->kids[1]->bytes.test('B'));
  CHECK(re.root->kids[2]->bytes.test('D'));
  CHECK(re.root->kids[3]->bytes.count() == 10);
  Regex scoped = parse("(?i:x)y");
  CHECK(only_kid(*scoped.root->kids[0]).bytes.test('X'));
  CHECK_FALSE(scoped.root->kids[1]->bytes.test('Y'));
  Regex neg = parse("(?i)[^a]");
  CHECK_FALSE(neg.root->bytes.test('A'));
}

TEST_CASE("regex: anchors and word boundaries are assertions") {
  Regex re = parse("^\\bx\\B$");
  REQUIRE(re.root->kids.size() == 5);
  CHECK(re.root->kids[0]->assertion == AssertKind::kLineStart);
  CHECK(re.root->kids[1]->assertion == AssertKind::kWordBoundary);
  CHECK(re.root->kids[3]->assertion == AssertKind::kNotWordBoundary);
  CHECK(re.root->kids[4]->assertion == AssertKind::kLineEnd);
}

TEST_CASE("regex: min_length and nullable") {
  CHECK(min_length(*parse("ab{2,3}c?").root) == 3);
  CHECK(min_length(*parse("a|bc").root) == 1);
  CHECK(nullable(*parse("(?:a|)").root));
  CHECK_FALSE(nullable(*parse("x+").root));
}

TEST_CASE("regex: refused constructs name the offending position") {
  struct Case {
    const char *pattern;
    int pos;
    const char *message_part;
  };
  const Case cases[] = {
      {"ab\\1", 2, "backreferences"},
      {"x\\k<a>", 1, "backreferences"},
      {"a(?=b)", 1, "lookaround"},
      {"a(?!b)", 1, "lookaround"},
      {"a(?<=b)", 1, "lookaround"},
      {"a(?<!b)", 1, "lookaround"},
      {"(?>ab)", 0, "atomic"},
      {"a*+", 2, "possessive"},
      {"a**", 2, "nested quantifier"},
      {"\\p{L}", 0, "Unicode"},
      {"(?P<n>a)", 0, "(?<name>"},
      {"(?x)a", 1, "unsupported group"},
      {"(ab", 0, "missing ')'"},
      {"ab)", 2, "unbalanced ')'"},
      {"[ab", 0, "unterminated class"},
      {"*a", 0, "nothing to repeat"},
      {"a|?", 2, "nothing to repeat"},
      {"a{1001}", 2, "above 1000"},
      {"a{3,2}", 1, "smaller than m"},
      {"a{x}", 1, "'{' must start a repetition"},
      {"a}", 1, "unmatched '}'"},
      {"[z-a]", 1, "out of order"},
      {"\\q", 0, "unknown escape"},
      {"\\x4", 0, "two hex digits"},
      {"ab\\", 2, "trailing backslash"},
      {"(?<Bad>a)", 3, "capture name"},
      {"(?<a>x)(?<a>y)", 10, "duplicate capture name"},
      {"[[:alpha:]]", 1, "POSIX"},
      {"^*", 1, "repeats nothing"},
      {"a\\n", 1, "never contains"},
      {"[\\n]", 1, "never contains"},
  };
  for (const auto &c : cases) {
    CAPTURE(c.pattern);
    auto [pos, msg] = refusal(c.pattern);
    CHECK(pos == c.pos);
    CHECK(msg.find(c.message_part) != std::string::npos);
  }
}
