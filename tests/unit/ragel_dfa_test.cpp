// Ragel XML -> tables: the parser on Ragel's real output format, the state
// split that turns accepting transitions into accepting states, byte classes,
// and the whole path through the real ragel.
#include "ragel_dfa.h"

#include <doctest/doctest.h>

#include <set>

#include "match/dfa.h"
#include "pieces.h"
#include "regex_parser.h"

using namespace faultline;

namespace {

// What `ragel -x` printed for: main := ( any* . ( 65 66 @a0 ) ) | ( 90 @a1 );
// trimmed to the parts flc reads, in Ragel 6.10's layout.
const char kXml[] = R"(<ragel version="6.10" filename="t.rl" lang="C">
<ragel_def name="m">
  <alphtype>uchar</alphtype>
  <machine>
    <action_list length="2">
      <action id="0" name="p7" line="4" col="11"><text> </text></action>
      <action id="1" name="p9" line="5" col="11"><text> </text></action>
    </action_list>
    <action_table_list length="2">
      <action_table id="0" length="1">0</action_table>
      <action_table id="1" length="1">1</action_table>
    </action_table_list>
    <start_state>0</start_state>
    <state_list length="3">
      <state id="0">
      <trans_list length="4">
        <t>0 64 1 x</t>
        <t>65 65 2 x</t>
        <t>66 89 1 x</t>
        <t>90 90 1 1</t>
      </trans_list>
      </state>
      <state id="1">
      <trans_list length="2">
        <t>0 64 1 x</t>
        <t>65 65 2 x</t>
      </trans_list>
      </state>
      <state id="2" final="t">
      <trans_list length="3">
        <t>0 64 1 x</t>
        <t>65 65 2 x</t>
        <t>66 66 1 0</t>
      </trans_list>
      </state>
    </state_list>
  </machine>
</ragel_def>
</ragel>
)";

// The pieces a table accepts while running over `line`.
std::set<uint32_t> run(const DfaTables &t, const std::string &line) {
  DfaView v;
  v.state_count = t.state_count;
  v.class_count = t.class_count;
  v.start = t.start;
  v.accept_base = t.accept_base;
  v.class_map = t.class_map.data();
  v.width = 4;
  v.trans = t.trans.data();
  v.accept_offsets = t.accept_offsets.data();
  v.accepts = t.accepts.data();
  std::set<uint32_t> seen;
  dfa_run(v, reinterpret_cast<const uint8_t *>(line.data()), line.size(), [&](uint32_t s) {
    for (const uint32_t *a = v.accepts_begin(s); a != v.accepts_end(s); ++a) seen.insert(*a);
  });
  return seen;
}

}  // namespace

TEST_CASE("ragel xml: states, ranges, actions and start are read") {
  RagelMachine m = parse_ragel_xml(kXml);
  CHECK(m.start == 0);
  REQUIRE(m.states.size() == 3);
  CHECK(m.states[0].ranges.size() == 4);
  CHECK(m.states[0].ranges[3].action_table == 1);
  CHECK(m.states[0].ranges[0].action_table == -1);
  CHECK(m.action_names == std::vector<std::string>{"p7", "p9"});
  CHECK(m.action_tables.at(1) == std::vector<int>{1});
}

TEST_CASE("ragel xml -> tables: accepting transitions become accepting states") {
  DfaTables t = build_tables(parse_ragel_xml(kXml));
  // 3 Ragel states + 1 dead state (bytes 91..255 in state 0 have no
  // transition; state 1 lacks 66..255) + 2 accepting copies.
  CHECK(t.state_count == 6);
  CHECK(t.accept_base == 4);
  CHECK(t.accept_offsets == std::vector<uint32_t>{0, 1, 2});
  std::set<uint32_t> accepted(t.accepts.begin(), t.accepts.end());
  CHECK(accepted == std::set<uint32_t>{7, 9});
  // Byte classes: bytes that behave the same everywhere share one.
  CHECK(t.class_map['A'] != t.class_map['B']);
  CHECK(t.class_map['C'] == t.class_map['D']);
  CHECK(t.class_map[0] == t.class_map['0']);
  CHECK(t.class_count == 6);  // 0-64, A, B, C-Y, Z, 91-255
  CHECK(t.trans.size() == t.state_count * t.class_count);
  CHECK(run(t, "..AB") == std::set<uint32_t>{7});
  CHECK(run(t, "Z") == std::set<uint32_t>{9});
  CHECK(run(t, ".Z").empty());  // the Z piece is anchored at the line start
  CHECK(run(t, "A B").empty());
}

TEST_CASE("ragel xml: malformed input is refused, never trusted") {
  std::string xml = kXml;
  CHECK_THROWS_AS(parse_ragel_xml(""), RagelError);
  std::string bad_target = xml;
  bad_target.replace(bad_target.find("<t>0 64 1 x</t>"), 15, "<t>0 64 9 x</t>");
  CHECK_THROWS_WITH_AS(parse_ragel_xml(bad_target), doctest::Contains("target out of range"), RagelError);
  std::string bad_range = xml;
  bad_range.replace(bad_range.find("<t>66 89 1 x</t>"), 16, "<t>66 300 1 x</t>");
  CHECK_THROWS_WITH_AS(parse_ragel_xml(bad_range), doctest::Contains("0..255"), RagelError);
  std::string bad_table = xml;
  bad_table.replace(bad_table.find("<t>90 90 1 1</t>"), 16, "<t>90 90 1 5</t>");
  CHECK_THROWS_WITH_AS(parse_ragel_xml(bad_table), doctest::Contains("unknown action table"), RagelError);
}

TEST_CASE("ragel: the real ragel builds pieces into a DFA that finds them") {
  PieceOptions opt;
  auto piece = [&](const char *rx) {
    regex::Regex re = regex::parse(rx);
    PatternPieces pp = split_pattern(re, opt);
    REQUIRE(pp.pieces.size() == 1);
    return std::make_pair(std::move(re), piece_to_ragel(pp.pieces[0]));
  };
  auto [r0, p0] = piece("out of memory");
  auto [r1, p1] = piece("(?i)xid \\d+");
  auto [r2, p2] = piece("^Traceback");
  auto [r3, p3] = piece("Killed$");
  std::vector<DfaPiece> pieces = {{0, p0, "t/0"}, {1, p1, "t/1"}, {2, p2, "t/2"}, {3, p3, "t/3"}};
  std::string source = emit_ragel_source(pieces, "t");
  DfaTables t = compile_dfa(FAULTLINE_TEST_RAGEL, pieces, "t");
  CHECK(run(t, "CUDA out of memory. Tried") == std::set<uint32_t>{0});
  CHECK(run(t, "NVRM: XID 79, pid=1") == std::set<uint32_t>{1});
  CHECK(run(t, "Traceback (most recent call last):") == std::set<uint32_t>{2});
  // "^" is left to the program (the message may stand behind prefixes).
  CHECK(run(t, "[rank3]: Traceback") == std::set<uint32_t>{2});
  CHECK(run(t, "bash: line 1: 42 Killed") == std::set<uint32_t>{3});
  CHECK(run(t, "Killed process 42").empty());
  CHECK(run(t, "out of memory; Killed") == std::set<uint32_t>{0, 3});
}

TEST_CASE("pieces: splitting at gaps, anchors and weak pieces") {
  PieceOptions opt;
  auto split = [&](const char *rx) { return split_pattern(regex::parse(rx), opt); };
  CHECK(split("abc.*def").pieces.size() == 2);
  CHECK_FALSE(split("abc.*def").exact);
  CHECK(split("abc\\S+def").pieces.size() == 2);
  CHECK(split("abc.{2,40}def").pieces.size() == 2);
  CHECK(split("abc\\d+def").pieces.size() == 1);  // narrow loops stay in the DFA
  CHECK(split("abc\\d+def").exact);
  // "^" is the message start behind the line's prefixes: the program decides it.
  CHECK(split("^abc").anchored);
  CHECK_FALSE(split("^abc").exact);
  CHECK_FALSE(split("abc").anchored);
  CHECK(split("abc$").pieces.at(0).anchored_end);
  CHECK(split("abc$").exact);
  CHECK_FALSE(split("\\babc").exact);  // boundaries are left to the program
  PatternPieces weak = split("ab.*\\d+");
  CHECK(weak.weak);
  CHECK(weak.pieces.size() == 1);
  PatternPieces dropped = split("memory.*ab");  // "ab" is too short to keep
  CHECK(dropped.pieces.size() == 1);
  CHECK_FALSE(dropped.weak);
  CHECK_THROWS_AS(split(".*"), NoPieces);
  CHECK_THROWS_AS(split("\\b"), NoPieces);
}
