// Option structs, through the public header only: one rule for every
// create/open call (STYLE.md section 2): NULL means defaults, a struct_size
// below the first released layout is refused, a larger struct is accepted
// only when the part this library does not know is zero, reserved fields must
// be zero. And the scanner's error message says what failed.
#include <doctest/doctest.h>
#include <faultline.h>

#include <cstddef>
#include <cstring>
#include <string>

namespace {

// A caller built against a newer header: the struct as this library knows it,
// followed by fields it does not.
template <typename T>
struct Newer {
  T known;
  uint64_t unknown[2];
};

// Opens, creates or builds with `opts`; returns the status and frees what it made.
fl_status open_pack(const fl_pack_options *opts) {
  fl_pack *p = nullptr;
  fl_status st = fl_pack_open_default(opts, &p, nullptr, 0);
  CHECK((st == FL_OK) == (p != nullptr));
  fl_pack_free(p);
  return st;
}

struct DefaultPack {
  fl_pack *pack = nullptr;
  DefaultPack() { REQUIRE(fl_pack_open_default(nullptr, &pack, nullptr, 0) == FL_OK); }
  ~DefaultPack() { fl_pack_free(pack); }
};

fl_status create_scanner(const fl_pack *pack, const fl_scanner_options *opts) {
  fl_scanner *s = nullptr;
  fl_status st = fl_scanner_create(pack, opts, &s);
  CHECK((st == FL_OK) == (s != nullptr));
  fl_scanner_free(s);
  return st;
}

fl_status create_diagnoser(const fl_pack *pack, const fl_diagnoser_options *opts) {
  fl_diagnoser *d = nullptr;
  fl_status st = fl_diagnoser_create(pack, opts, &d);
  CHECK((st == FL_OK) == (d != nullptr));
  fl_diagnoser_free(d);
  return st;
}

// The same checks for each kind of options, through `make` (open or create).
template <typename T, typename Make>
void check_rule(const T &defaults, Make make) {
  CHECK(make(nullptr) == FL_OK);
  T o = defaults;
  CHECK(make(&o) == FL_OK);

  SUBCASE("smaller than the first released layout") {
    for (uint32_t size : {0u, 4u, 8u, static_cast<uint32_t>(sizeof(T) - 1)}) {
      o.struct_size = size;
      CHECK(make(&o) == FL_E_INVALID_ARG);
    }
  }
  SUBCASE("a newer, larger struct: accepted with a zero tail, refused with any other") {
    Newer<T> n;
    std::memset(&n, 0, sizeof n);
    n.known = defaults;
    n.known.struct_size = sizeof n;
    CHECK(make(&n.known) == FL_OK);
    n.unknown[1] = 1;
    CHECK(make(&n.known) == FL_E_INVALID_ARG);
  }
  SUBCASE("reserved fields must be zero") {
    o.flags = 1u << 31;  // no struct defines this flag
    CHECK(make(&o) == FL_E_INVALID_ARG);
    if constexpr (requires { o.reserved; }) {
      o.flags = 0;
      o.reserved = 7;
      CHECK(make(&o) == FL_E_INVALID_ARG);
    }
  }
}

}  // namespace

TEST_CASE("options: fl_pack_options follow the rule") {
  check_rule(fl_pack_options FL_PACK_OPTIONS_INIT, [](const fl_pack_options *o) { return open_pack(o); });
}

TEST_CASE("options: fl_pack_options of 0.1, before the signature fields, stay accepted; sizes between layouts do not") {
  // A caller built against the 0.1 header: struct_size, flags, allocator.
  struct Layout01 {
    uint32_t struct_size;
    uint32_t flags;
    const fl_allocator *allocator;
  };
  static_assert(sizeof(Layout01) == offsetof(fl_pack_options, verifier), "0.1's layout is the head of 0.2's");
  fl_pack_options o = FL_PACK_OPTIONS_INIT;
  o.struct_size = sizeof(Layout01);
  // The bytes past a 0.1 struct are not the caller's: set them to garbage to
  // show they are not read.
  std::memset(reinterpret_cast<char *>(&o) + sizeof(Layout01), 0xff, sizeof o - sizeof(Layout01));
  CHECK(open_pack(&o) == FL_OK);
  for (size_t size = sizeof(Layout01) + 1; size < sizeof(fl_pack_options); size++) {
    o = fl_pack_options FL_PACK_OPTIONS_INIT;
    o.struct_size = static_cast<uint32_t>(size);
    CHECK(open_pack(&o) == FL_E_INVALID_ARG);
  }
  // FL_PACK_REQUIRE_SIGNATURE is a flag of 0.2: known, but without a verifier nothing satisfies it.
  o = fl_pack_options FL_PACK_OPTIONS_INIT;
  o.flags = FL_PACK_REQUIRE_SIGNATURE;
  CHECK(open_pack(&o) == FL_E_INVALID_ARG);
}

TEST_CASE("options: fl_scanner_options follow the rule") {
  DefaultPack p;
  check_rule(fl_scanner_options FL_SCANNER_OPTIONS_INIT, [&](const fl_scanner_options *o) { return create_scanner(p.pack, o); });
}

TEST_CASE("options: fl_diagnoser_options follow the rule") {
  DefaultPack p;
  check_rule(fl_diagnoser_options FL_DIAGNOSER_OPTIONS_INIT,
             [&](const fl_diagnoser_options *o) { return create_diagnoser(p.pack, o); });
}

TEST_CASE("options: *_options_init fills defaults and zeroes a newer caller's tail") {
  Newer<fl_scanner_options> s;
  std::memset(&s, 0xab, sizeof s);
  CHECK(fl_scanner_options_init(&s.known, sizeof s) == FL_OK);
  CHECK(s.known.struct_size == sizeof(fl_scanner_options));
  CHECK(s.known.flags == 0);
  CHECK(s.known.allocator == nullptr);
  CHECK(s.unknown[0] == 0);
  CHECK(s.unknown[1] == 0);
  Newer<fl_diagnoser_options> d;
  std::memset(&d, 0xab, sizeof d);
  CHECK(fl_diagnoser_options_init(&d.known, sizeof d) == FL_OK);
  CHECK(d.known.struct_size == sizeof(fl_diagnoser_options));
  CHECK(d.known.max_line_bytes == 0);
  CHECK(d.unknown[1] == 0);
  fl_pack_options po;
  CHECK(fl_pack_options_init(&po, sizeof po - 1) == FL_E_INVALID_ARG);
  CHECK(fl_pack_options_init(&po, sizeof po) == FL_OK);
  CHECK(po.struct_size == sizeof po);
}

TEST_CASE("scanner: fl_scanner_errmsg says what failed, and is cleared by the next call") {
  DefaultPack p;
  fl_scanner *s = nullptr;
  REQUIRE(fl_scanner_create(p.pack, nullptr, &s) == FL_OK);
  CHECK(std::string(fl_scanner_errmsg(s)).empty());
  CHECK(fl_scanner_feed(s, nullptr, 3, nullptr, nullptr) == FL_E_INVALID_ARG);
  CHECK(std::string(fl_scanner_errmsg(s)).find("NULL") != std::string::npos);

  const std::string oom = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n";
  auto stop = [](void *, const fl_event *) { return 1; };
  CHECK(fl_scanner_feed(s, oom.data(), oom.size(), stop, nullptr) == FL_E_STOPPED);
  CHECK(std::string(fl_scanner_errmsg(s)).find("callback") != std::string::npos);
  CHECK(fl_scanner_feed(s, "ok\n", 3, nullptr, nullptr) == FL_OK);
  CHECK(std::string(fl_scanner_errmsg(s)).empty());
  CHECK(fl_scanner_finish(s, nullptr, nullptr) == FL_OK);
  fl_scanner_free(s);
  CHECK(std::string(fl_scanner_errmsg(nullptr)).empty());
}
