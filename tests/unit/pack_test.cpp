// Packs: a round trip through writer and reader, byte-identical rebuilds,
// and every refusal of the reader, each with its own status, before a view
// exists: foreign bytes, other format majors, truncation, corruption, and
// crafted content whose indices point outside their tables.
#include <doctest/doctest.h>

#include <cstring>

#include "common/hash.h"
#include "fixtures.h"
#include "match/pack_header.h"
#include "pack_generated.h"

using namespace faultline;

namespace {

std::vector<Signature> two_entries() {
  Signature a = fixtures::signature("nccl-demo", {"NET/IB : Got completion from peer (?<peer>\\S+) with error (?<status>\\d+)"});
  a.related = {"oom-demo"};
  a.causes = {"oom-demo"};
  a.role = "cause";
  a.action = "exclude-node-and-retry";
  Signature b = fixtures::signature("oom-demo", {"CUDA out of memory", "Tried to allocate (?<size>\\d+) MiB"});
  b.require = "all";
  b.scope = "job";
  b.min_count = 3;
  b.severity = "critical";
  b.code_examples = {CodeExample{"pytorch", "python", "torch.cuda.empty_cache()", "returns cached blocks", {}},
                     CodeExample{"deepspeed", "json", "{\"zero_optimization\": {\"stage\": 3}}", "shards states", {}}};
  b.answers = {Answer{1, "minutes"}, Answer{3, "nvidia-smi"}};
  std::vector<Signature> out;
  out.push_back(std::move(a));
  out.push_back(std::move(b));
  return out;
}

// Header + hash around FlatBuffers content, as the writer frames it.
std::vector<uint8_t> frame(flatbuffers::FlatBufferBuilder &b) { return frame_pack(b.GetBufferPointer(), b.GetSize()); }

// A small hand-made pack: one entry, one pattern matching "ab", one piece,
// one DFA. `spoil` changes one field to make it invalid.
struct Crafted {
  uint32_t related = 0;  // entry index in `related`
  uint32_t pattern_entry = 0;
  uint32_t piece_pattern = 0;
  uint8_t piece_bit = 0;
  uint32_t dfa_target = 1;  // a transition target
  uint32_t dfa_start = 0;
  uint32_t accept = 0;  // piece index accepted
  uint32_t jump = 0;    // target of the program's jump
  uint8_t action = 3;
  bool has_related = false;
};

std::vector<uint8_t> craft(const Crafted &c) {
  flatbuffers::FlatBufferBuilder b;
  std::vector<uint32_t> rel;
  if (c.has_related) rel.push_back(c.related);
  fb::Condition cond(fb::Require::Any, fb::Scope::Rank, 1);
  auto id = b.CreateString("crafted");
  auto related = b.CreateVector(rel);
  fb::EntryBuilder eb(b);
  eb.add_id(id);
  eb.add_related(related);
  eb.add_condition(&cond);
  eb.add_first_pattern(0);
  eb.add_pattern_count(1);
  eb.add_action(static_cast<fb::Action>(c.action));
  auto entry = eb.Finish();
  // save 0; byte 'a'; byte 'b'; save 1; jump; match
  std::vector<uint32_t> prog = {insn_word0(kOpSave, 0),
                                0,
                                insn_word0(kOpByte, 'a'),
                                0,
                                insn_word0(kOpByte, 'b'),
                                0,
                                insn_word0(kOpSave, 1),
                                0,
                                insn_word0(kOpJump, c.jump ? c.jump : 5),
                                0,
                                insn_word0(kOpMatch, 0),
                                0};
  auto progv = b.CreateVector(prog);
  auto pattern = fb::CreatePattern(b, c.pattern_entry, 0, 0, 0,
                                   b.CreateVector(std::vector<flatbuffers::Offset<flatbuffers::String>>{}), progv, 0, 2, 1, true);
  std::vector<fb::Piece> pieces = {fb::Piece(c.piece_pattern, c.piece_bit)};
  // Two states, one class: state 0 -> target, state 1 accepting.
  std::vector<uint8_t> cmap(256, 0);
  std::vector<uint8_t> trans = {static_cast<uint8_t>(c.dfa_target), 1};
  std::vector<uint32_t> offsets = {0, 1};
  std::vector<uint32_t> accepts = {c.accept};
  auto cmapv = b.CreateVector(cmap);
  auto transv = b.CreateVector(trans);
  auto offv = b.CreateVector(offsets);
  auto accv = b.CreateVector(accepts);
  auto dfa = fb::CreateDfa(b, 2, 1, c.dfa_start, 1, cmapv, transv, 0, 0, offv, accv);
  auto entries = b.CreateVector(std::vector<flatbuffers::Offset<fb::Entry>>{entry});
  auto patterns = b.CreateVector(std::vector<flatbuffers::Offset<fb::Pattern>>{pattern});
  auto piecesv = b.CreateVectorOfStructs(pieces);
  auto dfas = b.CreateVector(std::vector<flatbuffers::Offset<fb::Dfa>>{dfa});
  auto root = fb::CreatePack(b, 0, 0, entries, patterns, piecesv, dfas, 0, 6, 2);
  fb::FinishPackBuffer(b, root);
  return frame(b);
}

Status open_bytes(const std::vector<uint8_t> &bytes, std::string *message = nullptr) {
  fixtures::Pack p;
  fixtures::copy_bytes(&p, bytes);
  ErrorText err;
  Status st = fixtures::open(&p, &err);
  if (message) *message = err.text;
  return st;
}

}  // namespace

TEST_CASE("pack: round trip keeps every field the writer was given") {
  fixtures::Pack p = fixtures::build(two_entries());
  REQUIRE(fixtures::open(&p) == Status::kOk);
  const PackView &v = p.view;
  CHECK(v.header.format_major == kPackFormatMajor);
  CHECK(v.entry_count() == 2);
  CHECK(v.pattern_count() == 3);
  const fb::Entry *a = v.entry(0);
  CHECK(a->id()->str() == "nccl-demo");
  CHECK(a->action() == fb::Action::ExcludeNodeAndRetry);
  CHECK(a->role() == fb::Role::Cause);
  REQUIRE(a->related()->size() == 1);
  CHECK(a->related()->Get(0) == 1);
  CHECK(a->causes()->Get(0) == 1);
  const fb::Entry *b = v.entry(1);
  CHECK(b->severity() == fb::Severity::Critical);
  CHECK(b->condition()->require() == fb::Require::All);
  CHECK(b->condition()->scope() == fb::Scope::Job);
  CHECK(b->condition()->min_count() == 3);
  CHECK(b->first_pattern() == 1);
  CHECK(b->pattern_count() == 2);
  CHECK(v.pattern(2)->capture_names()->Get(0)->str() == "size");
  CHECK(v.pattern(0)->piece_count() == 2);  // split at \S+
  CHECK_FALSE(v.pattern(0)->exact());
  CHECK(v.pattern(1)->exact());
  CHECK(b->fix_commands()->Get(0)->run()->str() == "true");
  CHECK(b->references()->Get(0)->url()->str() == "https://example.org");
  // Format 1.3: the page's code per stack and answers; absent, not empty, when an entry has none.
  CHECK(a->code_examples() == nullptr);
  CHECK(a->answers() == nullptr);
  REQUIRE(b->code_examples()->size() == 2);
  CHECK(b->code_examples()->Get(1)->stack()->str() == "deepspeed");
  CHECK(b->code_examples()->Get(1)->language()->str() == "json");
  CHECK(b->code_examples()->Get(0)->why()->str() == "returns cached blocks");
  REQUIRE(b->answers()->size() == 2);
  CHECK(b->answers()->Get(0)->question() == fb::Question::FixTime);
  CHECK(b->answers()->Get(1)->question() == fb::Question::CheapestConfirm);
  CHECK(b->answers()->Get(1)->text()->str() == "nvidia-smi");
}

TEST_CASE("pack: the same signatures give byte-identical packs") {
  auto first = build_pack(two_entries(), fixtures::build_options()).bytes;
  auto second = build_pack(two_entries(), fixtures::build_options()).bytes;
  CHECK(first == second);
  auto parallel = fixtures::build_options();
  parallel.jobs = 2;
  parallel.state_budget = 10;  // forces partitioning, and parallel Ragel runs
  auto p1 = build_pack(two_entries(), parallel).bytes;
  auto p2 = build_pack(two_entries(), parallel).bytes;
  CHECK(p1 == p2);
  fixtures::Pack p;
  fixtures::copy_bytes(&p, p1);
  REQUIRE(fixtures::open(&p) == Status::kOk);
  CHECK(p.view.dfa_count() > 1);
}

TEST_CASE("pack: the header is checked in order, each failure with its own status") {
  auto good = build_pack(two_entries(), fixtures::build_options()).bytes;
  std::string msg;
  SUBCASE("not a pack") {
    std::vector<uint8_t> junk(200, 'x');
    CHECK(open_bytes(junk, &msg) == Status::kNotAPack);
    CHECK(open_bytes({}, &msg) == Status::kNotAPack);
  }
  SUBCASE("foreign format major, named in the message") {
    auto bytes = good;
    uint16_t major = kPackFormatMajor + 1;
    std::memcpy(bytes.data() + 4, &major, 2);
    CHECK(open_bytes(bytes, &msg) == Status::kPackVersion);
    CHECK(msg.find("pack format " + std::to_string(kPackFormatMajor + 1) + "." + std::to_string(kPackFormatMinor)) !=
          std::string::npos);
    CHECK(msg.find("runtime (format " + std::to_string(kPackFormatMajor) + "." + std::to_string(kPackFormatMinor) + ")") !=
          std::string::npos);
  }
  SUBCASE("a newer minor is accepted") {
    auto bytes = good;
    uint16_t minor = kPackFormatMinor + 3;
    std::memcpy(bytes.data() + 6, &minor, 2);
    CHECK(open_bytes(bytes, &msg) == Status::kOk);
  }
  SUBCASE("truncated") {
    auto bytes = good;
    bytes.resize(bytes.size() - 1);
    CHECK(open_bytes(bytes, &msg) == Status::kPackCorrupt);
    CHECK(msg.find("length mismatch") != std::string::npos);
    bytes.resize(40);
    CHECK(open_bytes(bytes, &msg) == Status::kPackCorrupt);
  }
  SUBCASE("one flipped content byte fails the hash") {
    auto bytes = good;
    bytes[bytes.size() / 2] ^= 0x40;
    CHECK(open_bytes(bytes, &msg) == Status::kPackCorrupt);
    CHECK(msg.find("hash mismatch") != std::string::npos);
  }
  SUBCASE("misaligned memory is a caller error") {
    std::vector<uint64_t> mem(good.size() / 8 + 2);
    uint8_t *odd = reinterpret_cast<uint8_t *>(mem.data()) + 1;
    std::memcpy(odd, good.data(), good.size());
    PackView v;
    ErrorText err;
    CHECK(open_pack_view(odd, good.size(), &v, &err) == Status::kInvalidArg);
    CHECK(v.root == nullptr);
  }
}

TEST_CASE("pack: a hand-made valid pack opens, and each bad index is refused") {
  std::string msg;
  REQUIRE(open_bytes(craft(Crafted{}), &msg) == Status::kOk);
  struct Case {
    const char *what;
    Crafted c;
    const char *message_part;
  };
  std::vector<Case> cases;
  {
    Crafted c;
    c.has_related = true;
    c.related = 1;
    cases.push_back({"related entry out of range", c, "related entry index"});
  }
  {
    Crafted c;
    c.pattern_entry = 4;
    cases.push_back({"pattern names a missing entry", c, "pattern names a missing entry"});
  }
  {
    Crafted c;
    c.piece_pattern = 2;
    cases.push_back({"piece names a missing pattern", c, "piece names a missing pattern"});
  }
  {
    Crafted c;
    c.piece_bit = 1;
    cases.push_back({"piece bit beyond the pattern's pieces", c, "piece bit"});
  }
  {
    Crafted c;
    c.dfa_target = 2;
    cases.push_back({"transition to a missing state", c, "transition to a missing state"});
  }
  {
    Crafted c;
    c.dfa_start = 7;
    cases.push_back({"start state out of range", c, "start state"});
  }
  {
    Crafted c;
    c.accept = 3;
    cases.push_back({"accepts a missing piece", c, "accepts a missing piece"});
  }
  {
    Crafted c;
    c.jump = 9;
    cases.push_back({"program jumps outside itself", c, "invalid instruction"});
  }
  {
    Crafted c;
    c.action = 42;
    cases.push_back({"enum value out of range", c, "action out of range"});
  }
  for (const auto &k : cases) {
    CAPTURE(k.what);
    CHECK(open_bytes(craft(k.c), &msg) == Status::kPackCorrupt);
    CHECK(msg.find(k.message_part) != std::string::npos);
  }
}

TEST_CASE("pack: header counts must agree with the content") {
  auto bytes = craft(Crafted{});
  uint32_t entries = 5;
  std::memcpy(bytes.data() + 32, &entries, 4);
  std::string msg;
  CHECK(open_bytes(bytes, &msg) == Status::kPackCorrupt);
  CHECK(msg.find("counts disagree") != std::string::npos);
}

// The transition check runs 16 targets at a time: an out-of-range target
// anywhere in a real table (8- or 16-bit) must be found, in a SIMD block or
// in the tail.
TEST_CASE("pack: a transition to a missing state is found anywhere in a real table") {
  std::vector<Signature> sigs;
  sigs.push_back(fixtures::signature("tables", {"CUDA out of memory", "NCCL WARN [a-z]+ timeout", "(?i)segmentation fault"}));
  fixtures::Pack pack = fixtures::build(sigs);
  REQUIRE(fixtures::open(&pack) == Status::kOk);
  const uint8_t *base = pack.bytes();
  int checked = 0;
  for (uint32_t d = 0; d < pack.view.dfa_count(); d++) {
    const fb::Dfa *dfa = pack.view.root->dfas()->Get(d);
    const uint32_t states = dfa->state_count();
    const size_t n = static_cast<size_t>(states) * dfa->class_count();
    const size_t width = dfa->trans8() ? 1 : dfa->trans16() ? 2 : 4;
    const uint8_t *table = dfa->trans8()    ? dfa->trans8()->data()
                           : dfa->trans16() ? reinterpret_cast<const uint8_t *>(dfa->trans16()->data())
                                            : reinterpret_cast<const uint8_t *>(dfa->trans32()->data());
    const size_t at = static_cast<size_t>(table - base);
    for (size_t cell : {size_t{0}, n / 2, n - 1}) {
      fixtures::Pack bad = pack;
      const uint32_t target = width == 1 && states > 255 ? 255 : states;  // the first missing state the width can hold
      if (target < states) continue;
      std::memcpy(bad.bytes() + at + cell * width, &target, width);
      // Re-hash the content so that only the transition is wrong.
      const uint64_t h = xxh64(bad.bytes() + kPackHeaderBytes, bad.size - kPackHeaderBytes);
      std::memcpy(bad.bytes() + 24, &h, 8);
      ErrorText err;
      CAPTURE(d);
      CAPTURE(cell);
      CHECK(fixtures::open(&bad, &err) == Status::kPackCorrupt);
      CHECK(std::string(err.text).find("transition to a missing state") != std::string::npos);
      checked++;
    }
  }
  CHECK(checked >= 3);
}
