// Compatibility across releases (libcore/match/PACK_FORMAT.md, section 10): one
// test case per row of the matrix. Packs written by the flc of every earlier
// format (tests/data/packs, built from their commits) open with today's
// runtime and give today's events and diagnosis; a pack of the next minor,
// with parts this runtime does not know, opens with those parts ignored; a
// pack of another major is refused with a message naming both versions.
#include <doctest/doctest.h>
#include <flatbuffers/flatbuffers.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "common/hash.h"
#include "faultline.h"
#include "pack_future_generated.h"  // the schema of format 1.(today + 1): tests/CMakeLists.txt
#include "test_files.h"

namespace fut = faultline::future;

namespace {

std::vector<uint8_t> read_bytes(const std::string &path) {
  std::vector<uint8_t> b = slurp_bytes(path);
  REQUIRE_MESSAGE(b.size() > 64, path);
  return b;
}

std::string old_pack_path(int minor) { return FAULTLINE_TEST_DATA "/packs/format-1." + std::to_string(minor) + ".flpack"; }

// Pack bytes at an 8-byte aligned address, as fl_pack_open_memory needs; they
// outlive the pack opened from them.
struct Aligned {
  std::vector<uint64_t> words;
  size_t size;
  explicit Aligned(const std::vector<uint8_t> &b) : words(b.size() / 8 + 1), size(b.size()) {
    std::memcpy(words.data(), b.data(), b.size());
  }
  const void *data() const { return words.data(); }
};

struct Opened {
  fl_status status = FL_E_INVALID_ARG;
  fl_pack *pack = nullptr;
  std::string error;
  std::unique_ptr<Aligned> bytes;
  explicit Opened(const std::vector<uint8_t> &b) : bytes(new Aligned(b)) {
    char err[512] = "";
    status = fl_pack_open_memory(bytes->data(), bytes->size, nullptr, &pack, err, sizeof err);
    error = err;
    if (status != FL_OK) CHECK(pack == nullptr);
  }
  explicit Opened(const std::string &path) {
    char err[512] = "";
    status = fl_pack_open_file(path.c_str(), nullptr, &pack, err, sizeof err);
    error = err;
  }
  ~Opened() { fl_pack_free(pack); }
};

fl_pack_info info_of(const std::vector<uint8_t> &b, fl_status *status) {
  const Aligned a(b);
  fl_pack_info info{};
  info.struct_size = sizeof info;
  *status = fl_pack_info_get(a.data(), a.size, &info);
  return info;
}

// Lines every pack of tests/data/small-signatures reads the same way: the
// must-match lines of its one entry (cuda-out-of-memory), then lines it must
// not match. Line 1 is the one tests/data/packs/README.md names.
const char kLog[] =
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.35 GiB. GPU 3 has a total capacity of 63.42 GiB of which "
    "1.70 GiB is free.\n"
    "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.12 GiB (GPU 5; 23.70 GiB total capacity; 22.00 GiB "
    "already allocated; 292.56 MiB free; 22.29 GiB reserved in total by PyTorch)\n"
    "OutOfMemoryError: CUDA out of memory. Tried to allocate 112.00 MiB. GPU 2 has a\n"
    "RuntimeError: CUDA error: out of memory\n"
    "ins-7df6eojsifuykig9:3018451:3018451 [0] enqueue.cc:1085 NCCL WARN Cuda failure 'out of memory'\n"
    "RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`\n"
    "[Rank 43] (after 1 iterations) memory (MB) | allocated: 15492.84619140625 | max allocated: 15492.84619140625\n"
    "RuntimeError: DataLoader worker (pid 9833) is killed by signal: Killed. \n"
    "For debugging consider passing CUDA_LAUNCH_BLOCKING=1.\n";

// What today's runtime must report for kLog, whatever the pack's format.
const std::vector<std::string> kEvents = {
    "1 cuda-out-of-memory/torch_oom requested=4.35 GiB gpu=3",
    "2 cuda-out-of-memory/torch_oom requested=3.12 GiB gpu=5",
    "3 cuda-out-of-memory/torch_oom requested=112.00 MiB gpu=2",
    "4 cuda-out-of-memory/cuda_error_oom",
    "5 cuda-out-of-memory/nccl_cuda_oom",
    "6 cuda-out-of-memory/cublas_alloc_failed",
};

std::vector<std::string> scan(const fl_pack *pack, const std::string &text = kLog) {
  std::vector<std::string> out;
  fl_scanner *sc = nullptr;
  REQUIRE(fl_scanner_create(pack, nullptr, &sc) == FL_OK);
  auto on = [](void *ctx, const fl_event *ev) {
    std::string e = std::to_string(ev->line_number) + " " + ev->entry_id + "/" + ev->pattern;
    for (uint32_t i = 0; i < ev->capture_count; i++)
      e += std::string(" ") + ev->captures[i].name + "=" + std::string(ev->captures[i].value, ev->captures[i].value_len);
    static_cast<std::vector<std::string> *>(ctx)->push_back(e);
    return 0;
  };
  REQUIRE(fl_scanner_feed(sc, text.data(), text.size(), on, &out) == FL_OK);
  REQUIRE(fl_scanner_finish(sc, on, &out) == FL_OK);
  fl_scanner_free(sc);
  return out;
}

struct Diagnosis {
  fl_diagnosis result{};
  std::string json, text;
};

Diagnosis diagnose(const fl_pack *pack, const std::string &log = kLog) {
  Diagnosis d;
  fl_diagnoser *dg = nullptr;
  REQUIRE(fl_diagnoser_create(pack, nullptr, &dg) == FL_OK);
  REQUIRE(fl_diagnoser_begin_source(dg, "train.log") == FL_OK);
  REQUIRE(fl_diagnoser_feed(dg, log.data(), log.size()) == FL_OK);
  REQUIRE(fl_diagnoser_end_source(dg) == FL_OK);
  d.result.struct_size = sizeof d.result;
  REQUIRE(fl_diagnoser_result(dg, &d.result) == FL_OK);
  const char *out = nullptr;
  size_t len = 0;
  REQUIRE(fl_diagnoser_report(dg, FL_REPORT_JSON, &out, &len) == FL_OK);
  d.json.assign(out, len);
  REQUIRE(fl_diagnoser_report(dg, FL_REPORT_TEXT, &out, &len) == FL_OK);
  d.text.assign(out, len);
  fl_diagnoser_free(dg);
  return d;
}

// The report's lines without those that say which pack was read (its name,
// versions and content hash): what must not depend on the pack's format.
std::string without_pack_lines(const std::string &report) {
  std::string out, line;
  std::istringstream in(report);
  while (std::getline(in, line))
    if (line.find("\"pack") == std::string::npos && line.find("\"name\"") == std::string::npos &&
        line.find("\"version\"") == std::string::npos && line.find("\"content_hash\"") == std::string::npos &&
        line.find("\"compiler\"") == std::string::npos)
      out += line + "\n";
  return out;
}

std::string page_of(const fl_pack *pack, uint32_t index) {
  std::vector<char> page(fl_pack_entry_page(pack, index, FL_PAGE_MARKDOWN, nullptr, 0) + 1);
  fl_pack_entry_page(pack, index, FL_PAGE_MARKDOWN, page.data(), page.size());
  return page.data();
}

// Whether a table stores a field. flc writes every field it knows, defaults
// included (ForceDefaults), so an absent field is one its flc did not know.
bool has_field(const void *table, flatbuffers::voffset_t field) {
  return static_cast<const flatbuffers::Table *>(table)->CheckField(field);
}

void set_u16(std::vector<uint8_t> &b, size_t at, uint16_t v) { std::memcpy(b.data() + at, &v, sizeof v); }
void set_u32(std::vector<uint8_t> &b, size_t at, uint32_t v) { std::memcpy(b.data() + at, &v, sizeof v); }

// Today's small pack read into the schema of the next minor (a superset of
// today's), given what that minor adds by `edit`, written again and framed
// with a header of format 1.(today + 1), its length and its XXH64. Nothing is
// written by hand: FlatBuffers lays the new parts out as a newer flc would.
template <typename Edit>
std::vector<uint8_t> newer_minor_pack(Edit &&edit) {
  const std::vector<uint8_t> today = read_bytes(FAULTLINE_SMALL_PACK);
  std::unique_ptr<fut::FuturePackT> pack = fut::UnPackFuturePack(today.data() + 64);
  REQUIRE(pack != nullptr);
  edit(*pack);
  flatbuffers::FlatBufferBuilder fbb;
  fut::FinishFuturePackBuffer(fbb, fut::CreateFuturePack(fbb, pack.get()));
  // Sized once, then filled: growing a 64-byte vector trips GCC 12's
  // -Warray-bounds at -O3 (a false positive in its memmove).
  std::vector<uint8_t> b(64 + fbb.GetSize());
  std::copy(today.begin(), today.begin() + 64, b.begin());
  std::copy(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize(), b.begin() + 64);
  set_u16(b, 6, FL_PACK_FORMAT_MINOR + 1);
  const uint64_t total = b.size(), hash = faultline::xxh64(b.data() + 64, b.size() - 64);
  std::memcpy(b.data() + 16, &total, 8);
  std::memcpy(b.data() + 24, &hash, 8);
  return b;
}

const char kFutureNote[] = "written by a newer flc: unknown to this runtime";

// What the next minor adds, in every table it extends.
void add_future_parts(fut::FuturePackT &p) {
  auto note = std::make_unique<fut::FutureNoteT>();
  note->text = kFutureNote;
  note->level = 7;
  p.future_notes.push_back(std::move(note));
  p.future_count = 0x0123456789abcdefull;
  for (auto &e : p.entries) {
    e->future_note = kFutureNote;
    e->future_detail = std::make_unique<fut::FutureNoteT>();
    e->future_detail->text = kFutureNote;
  }
  for (auto &pat : p.patterns) pat->future_weights = {1, 2, 3, 0xffffffffu};
}

// The first value of enum E past those this runtime knows.
template <typename E>
E past(E max) {
  return static_cast<E>(static_cast<int>(max) + 1);
}

// Row "format 1.X x today's runtime": the pack opens (from its file and from
// memory), describes itself as 1.X, lists its entry, its lines give today's
// events, the diagnoser names its entry, its page renders, and it names no
// library (format < 1.4).
void check_old_pack(int minor) {
  CAPTURE(minor);
  const std::string path = old_pack_path(minor);
  const std::vector<uint8_t> bytes = read_bytes(path);
  fl_status st;
  const fl_pack_info info = info_of(bytes, &st);
  REQUIRE(st == FL_OK);
  CHECK(info.format_major == 1);
  CHECK(info.format_minor == minor);
  CHECK(info.content_valid == 1);
  CHECK(info.total_bytes == bytes.size());
  CHECK(info.entry_count == 1);
  CHECK(std::string(info.pack_version) == "0.1.0");
  CHECK(std::string(info.compiler_version).rfind("flc ", 0) == 0);

  // The pack really is of its format: what later formats added is absent
  // (read with the newest schema this test knows): the literal filter (1.1),
  // start bytes (1.2), the build time flc writes since 1.4. The small set's
  // patterns are all exact and it has no code examples or answers, so no
  // pack of it has 1.2's confirm DFAs or 1.3's additions
  // (tests/data/packs/README.md).
  flatbuffers::Verifier verifier(bytes.data() + 64, bytes.size() - 64);
  REQUIRE(fut::VerifyFuturePackBuffer(verifier));
  const fut::FuturePack *content = fut::GetFuturePack(bytes.data() + 64);
  CHECK((content->literal_filter() != nullptr) == (minor >= 1));
  bool start_bytes = false;
  for (const auto *pat : *content->patterns()) start_bytes = start_bytes || pat->start_bytes() != nullptr;
  CHECK(start_bytes == (minor >= 2));
  CHECK(!has_field(content, fut::FuturePack::VT_BUILD_TIME));
  CHECK(content->library_name() == nullptr);

  Opened from_file(path);
  REQUIRE_MESSAGE(from_file.status == FL_OK, from_file.error);
  Opened from_memory(bytes);
  REQUIRE_MESSAGE(from_memory.status == FL_OK, from_memory.error);
  const fl_pack *p = from_file.pack;
  REQUIRE(fl_pack_entry_count(p) == 1);
  CHECK(std::string(fl_pack_entry_id(p, 0)) == "cuda-out-of-memory");
  CHECK(std::string(fl_pack_entry_type(p, 0)) == "cuda_oom");
  CHECK(std::string(fl_pack_entry_category(p, 0)) == "memory");
  CHECK(std::string(fl_pack_entry_title(p, 0)).find("CUDA out of memory") == 0);
  CHECK(fl_pack_find_entry(p, "cuda-out-of-memory") == 0);
  CHECK(std::string(fl_pack_version(p)) == "0.1.0");
  CHECK(std::string(fl_pack_library_name(p)).empty());  // format < 1.4: not named
  CHECK(std::string(fl_pack_base_name(p)).empty());
  CHECK(fl_pack_build_time(p) == 0);
  CHECK(fl_pack_content_hash(p) == info.content_hash);
  CHECK(page_of(p, 0).find("Tried to allocate") != std::string::npos);

  CHECK(scan(p) == kEvents);
  CHECK(scan(from_memory.pack) == kEvents);

  const Diagnosis d = diagnose(p);
  CHECK(d.result.verdict == FL_VERDICT_FAILURE);
  REQUIRE(d.result.entry == 0);
  CHECK(std::string(fl_pack_entry_id(p, d.result.entry)) == "cuda-out-of-memory");
  CHECK(d.result.line == 1);
  CHECK(std::string(d.result.source) == "train.log");
  CHECK(d.json.find("\"id\": \"cuda-out-of-memory\"") != std::string::npos);
  CHECK(d.text.find("cuda-out-of-memory") != std::string::npos);

  // The same diagnosis as today's pack of the same signatures gives.
  Opened today(std::string(FAULTLINE_SMALL_PACK));
  REQUIRE(today.status == FL_OK);
  const Diagnosis t = diagnose(today.pack);
  CHECK(std::string(d.result.fingerprint) == t.result.fingerprint);
  CHECK(std::string(d.result.action) == t.result.action);
  CHECK(d.result.retry == t.result.retry);
  CHECK(d.result.confidence == t.result.confidence);
  std::string json = d.json;
  if (minor == 0) {
    // Format 1.0's commands name their placeholders without a type
    // ("{gpu}"); this runtime fills only typed ones ("{gpu:number}", flc
    // since b551341), so a 1.0 pack's command keeps the hole, never log text.
    const std::string untyped = "nvidia-smi -i {gpu} ";
    CHECK(json.find(untyped) != std::string::npos);
    CHECK(t.json.find("nvidia-smi -i 3 ") != std::string::npos);
    for (size_t at; (at = json.find(untyped)) != std::string::npos;) json.replace(at, untyped.size(), "nvidia-smi -i 3 ");
  }
  CHECK(without_pack_lines(json) == without_pack_lines(t.json));
}

}  // namespace

TEST_CASE("compat: today's pack of the same signatures gives the events every older pack must") {
  Opened today(std::string(FAULTLINE_SMALL_PACK));
  REQUIRE_MESSAGE(today.status == FL_OK, today.error);
  CHECK(scan(today.pack) == kEvents);
  // What the older packs lack, it has.
  const std::vector<uint8_t> bytes = read_bytes(FAULTLINE_SMALL_PACK);
  const fut::FuturePack *content = fut::GetFuturePack(bytes.data() + 64);
  CHECK(content->literal_filter() != nullptr);
  CHECK(content->patterns()->Get(0)->start_bytes() != nullptr);
  CHECK(has_field(content, fut::FuturePack::VT_BUILD_TIME));
}

TEST_CASE("compat: a pack of format 1.0 opens with today's runtime") { check_old_pack(0); }
TEST_CASE("compat: a pack of format 1.1 opens with today's runtime") { check_old_pack(1); }
TEST_CASE("compat: a pack of format 1.2 opens with today's runtime") { check_old_pack(2); }
TEST_CASE("compat: a pack of format 1.3 opens with today's runtime") { check_old_pack(3); }

TEST_CASE("compat: a pack of format < 1.4 in a stack names no library, so no site pack stands over it") {
  char err[512];
  fl_pack *ours = nullptr, *site = nullptr;
  REQUIRE(fl_pack_open_default(nullptr, &ours, err, sizeof err) == FL_OK);
  REQUIRE_MESSAGE(fl_pack_open_file(FAULTLINE_SITE_PACK, nullptr, &site, err, sizeof err) == FL_OK, err);
  for (int minor = 0; minor <= 3; minor++) {
    CAPTURE(minor);
    Opened old(old_pack_path(minor));
    REQUIRE_MESSAGE(old.status == FL_OK, old.error);
    fl_pack *s = nullptr;

    // A site pack right over it: refused, its base is not below it.
    const fl_pack *site_over_old[] = {old.pack, site};
    CHECK(fl_pack_stack(site_over_old, 2, nullptr, &s, err, sizeof err) == FL_E_INVALID_ARG);
    CHECK(s == nullptr);
    CHECK(std::strstr(err, "stands over") != nullptr);
    CHECK(std::strstr(err, "format < 1.4") != nullptr);

    // At the bottom under ours: ours is seen, the old entry is replaced by id.
    const fl_pack *ours_over_old[] = {old.pack, ours};
    REQUIRE(fl_pack_stack(ours_over_old, 2, nullptr, &s, err, sizeof err) == FL_OK);
    CHECK(fl_pack_entry_count(s) == fl_pack_entry_count(ours));
    uint32_t oom = fl_pack_find_entry(s, "cuda-out-of-memory");
    REQUIRE(oom != UINT32_MAX);
    CHECK(std::string(fl_pack_entry_origin(s, oom)) == "faultline");
    CHECK(fl_pack_entry_replaces(s, oom) == 1);
    CHECK(scan(s) == scan(ours));
    fl_pack_free(s);

    // Under ours and a site pack over ours: the site's base is ours, below it.
    const fl_pack *three[] = {old.pack, ours, site};
    REQUIRE_MESSAGE(fl_pack_stack(three, 3, nullptr, &s, err, sizeof err) == FL_OK, err);
    CHECK(fl_pack_layer_count(s) == 3);
    CHECK(fl_pack_find_entry(s, "site-nhc-health-check-failed") != UINT32_MAX);
    fl_pack_free(s);

    // Over ours, as a library of its own (it names no base): its entry replaces ours, from an unnamed library.
    const fl_pack *old_over_ours[] = {ours, old.pack};
    REQUIRE(fl_pack_stack(old_over_ours, 2, nullptr, &s, err, sizeof err) == FL_OK);
    oom = fl_pack_find_entry(s, "cuda-out-of-memory");
    REQUIRE(oom != UINT32_MAX);
    CHECK(std::string(fl_pack_entry_origin(s, oom)).empty());
    CHECK(fl_pack_entry_replaces(s, oom) == 1);
    CHECK(std::string(fl_pack_entry_title(s, oom)) == fl_pack_entry_title(old.pack, 0));
    const std::vector<std::string> events = scan(s);
    CHECK(std::find(events.begin(), events.end(), kEvents[0]) != events.end());
    const Diagnosis d = diagnose(s);
    CHECK(d.result.verdict == FL_VERDICT_FAILURE);
    CHECK(d.result.entry == oom);
    fl_pack_free(s);
  }
  fl_pack_free(site);
  fl_pack_free(ours);
}

TEST_CASE("compat: a pack of a newer minor opens, its unknown parts ignored") {
  const std::vector<uint8_t> future = newer_minor_pack(add_future_parts);
  // The new parts are there (read back with the newer schema), and the
  // content verifies under it.
  flatbuffers::Verifier v(future.data() + 64, future.size() - 64);
  REQUIRE(fut::VerifyFuturePackBuffer(v));
  const fut::FuturePack *content = fut::GetFuturePack(future.data() + 64);
  REQUIRE(content->future_notes() != nullptr);
  CHECK(content->future_notes()->Get(0)->text()->str() == kFutureNote);
  CHECK(content->future_count() == 0x0123456789abcdefull);
  CHECK(content->entries()->Get(0)->future_note()->str() == kFutureNote);
  CHECK(content->entries()->Get(0)->future_detail()->text()->str() == kFutureNote);
  CHECK(content->patterns()->Get(0)->future_weights()->size() == 4);

  fl_status st;
  const fl_pack_info info = info_of(future, &st);
  REQUIRE(st == FL_OK);
  CHECK(info.format_major == FL_PACK_FORMAT_MAJOR);
  CHECK(info.format_minor == FL_PACK_FORMAT_MINOR + 1);
  CHECK(info.content_valid == 1);

  Opened newer(future);
  REQUIRE_MESSAGE(newer.status == FL_OK, newer.error);
  Opened today(std::string(FAULTLINE_SMALL_PACK));
  REQUIRE(today.status == FL_OK);
  CHECK(scan(newer.pack) == kEvents);
  CHECK(scan(newer.pack) == scan(today.pack));
  REQUIRE(fl_pack_entry_count(newer.pack) == fl_pack_entry_count(today.pack));
  CHECK(std::string(fl_pack_entry_title(newer.pack, 0)) == fl_pack_entry_title(today.pack, 0));
  CHECK(std::string(fl_pack_library_name(newer.pack)) == fl_pack_library_name(today.pack));

  const Diagnosis n = diagnose(newer.pack), t = diagnose(today.pack);
  CHECK(n.result.verdict == FL_VERDICT_FAILURE);
  CHECK(n.result.entry == t.result.entry);
  CHECK(std::string(n.result.fingerprint) == t.result.fingerprint);
  CHECK(n.text == t.text);
  CHECK(without_pack_lines(n.json) == without_pack_lines(t.json));
  // Nothing of the new parts is shown.
  const std::string page = page_of(newer.pack, 0);
  CHECK(page == page_of(today.pack, 0));
  for (const std::string &shown : {page, n.json, n.text}) CHECK(shown.find("newer flc") == std::string::npos);
}

TEST_CASE("compat: a pack of a newer minor that sets header flags or reserved bytes is refused") {
  // A pack that needs them needs a newer runtime and says so with a new
  // major; under the same major they are corruption.
  std::vector<uint8_t> flagged = newer_minor_pack(add_future_parts);
  set_u32(flagged, 12, 1u);
  Opened with_flags(flagged);
  CHECK(with_flags.status == FL_E_PACK_CORRUPT);
  CHECK(with_flags.error.find("flags 0x00000001") != std::string::npos);
  CHECK(with_flags.error.find("new major") != std::string::npos);

  std::vector<uint8_t> reserved = newer_minor_pack(add_future_parts);
  reserved[63] = 1;
  Opened with_reserved(reserved);
  CHECK(with_reserved.status == FL_E_PACK_CORRUPT);
  CHECK(with_reserved.error.find("reserved") != std::string::npos);
}

TEST_CASE("compat: a pack of a newer minor with an enum value this runtime does not know is refused") {
  // New enum values, like new opcodes, are what an older runtime would
  // misread: they need a new major, and under the same one they are corrupt.
  const std::pair<void (*)(fut::EntryT &), const char *> rows[] = {
      {[](fut::EntryT &e) { e.severity = past(fut::Severity::MAX); }, "entry severity out of range"},
      {[](fut::EntryT &e) { e.role = past(fut::Role::MAX); }, "entry role out of range"},
      {[](fut::EntryT &e) { e.action = past(fut::Action::MAX); }, "entry action out of range"},
      {[](fut::EntryT &e) {
         const fut::Condition c = *e.condition;
         e.condition = std::make_unique<fut::Condition>(past(fut::Require::MAX), c.scope(), c.min_count());
       },
       "entry condition out of range"},
      {[](fut::EntryT &e) {
         const fut::Condition c = *e.condition;
         e.condition = std::make_unique<fut::Condition>(c.require(), past(fut::Scope::MAX), c.min_count());
       },
       "entry condition out of range"},
  };
  for (const auto &row : rows) {
    const std::string why = row.second;
    CAPTURE(why);
    Opened o(newer_minor_pack([&row](fut::FuturePackT &p) {
      add_future_parts(p);
      REQUIRE(p.entries[0]->condition != nullptr);
      row.first(*p.entries[0]);
    }));
    CHECK(o.status == FL_E_PACK_CORRUPT);
    CHECK(o.error == "pack is corrupt: " + why + " (at index 0)");
  }
}

TEST_CASE("compat: a pack of a newer major is refused, naming both versions") {
  std::vector<uint8_t> newer = read_bytes(FAULTLINE_SMALL_PACK);
  set_u16(newer, 4, FL_PACK_FORMAT_MAJOR + 1);
  const std::string pack_format = std::to_string(FL_PACK_FORMAT_MAJOR + 1) + "." + std::to_string(FL_PACK_FORMAT_MINOR);
  const std::string ours = std::to_string(FL_PACK_FORMAT_MAJOR) + "." + std::to_string(FL_PACK_FORMAT_MINOR);
  Opened o(newer);
  CHECK(o.status == FL_E_PACK_VERSION);
  CHECK(o.error == "pack format " + pack_format + " is not readable by this runtime (format " + ours + ")");
  fl_status st;
  const fl_pack_info info = info_of(newer, &st);
  CHECK(st == FL_E_PACK_VERSION);
  CHECK(info.format_major == 0);  // out-parameters stay empty on failure

  // Whatever its content: a new major may change every layout, and the
  // version is checked before anything after the header is read.
  std::vector<uint8_t> unreadable(4096, 0xa5);
  std::copy(newer.begin(), newer.begin() + 64, unreadable.begin());
  set_u32(unreadable, 12, 0xffffffffu);  // a new major may give flags a meaning
  Opened u(unreadable);
  CHECK(u.status == FL_E_PACK_VERSION);
  CHECK(u.error.find("pack format " + pack_format) == 0);
}

TEST_CASE("compat: a pack of an older major (0.x) is refused, naming both versions") {
  std::vector<uint8_t> older = read_bytes(FAULTLINE_SMALL_PACK);
  set_u16(older, 4, 0);
  set_u16(older, 6, 9);
  Opened o(older);
  CHECK(o.status == FL_E_PACK_VERSION);
  CHECK(o.error == "pack format 0.9 is not readable by this runtime (format " + std::to_string(FL_PACK_FORMAT_MAJOR) + "." +
                       std::to_string(FL_PACK_FORMAT_MINOR) + ")");
}
