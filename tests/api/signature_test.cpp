// Signed packs through the public headers (faultline.h, faultline_verify.h):
// a signed pack opens and names its signer; every tampered variant of the
// pack, of its signature or of the keys is refused with FL_E_SIGNATURE before
// the pack reader sees a byte; the require-signed policy refuses unsigned
// packs; a verifier is shared by threads.
//
// Keys and signatures are made here with libsodium, from the format written in
// libcore/match/PACK_FORMAT.md ("Signatures"), not with flc's code: the test
// is a second implementation of the format (flc's is tested against the
// runtime by tests/signing_cli_test.sh).
#include <doctest/doctest.h>
#include <faultline.h>
#include <faultline_verify.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "test_files.h"

namespace fs = std::filesystem;

namespace {

void write_bytes(const fs::path &p, const void *data, size_t n) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f.write(static_cast<const char *>(data), static_cast<std::streamsize>(n));
  REQUIRE(f.good());
}

void write_text(const fs::path &p, const std::string &s) { write_bytes(p, s.data(), s.size()); }

// A key pair from a fixed seed, and its files' text.
struct Key {
  unsigned char pk[crypto_sign_PUBLICKEYBYTES];
  unsigned char sk[crypto_sign_SECRETKEYBYTES];
  unsigned char id[8];
  std::string id_hex, public_text;

  explicit Key(uint8_t seed_byte) {
    REQUIRE(sodium_init() >= 0);
    unsigned char seed[crypto_sign_SEEDBYTES];
    std::memset(seed, seed_byte, sizeof seed);
    crypto_sign_seed_keypair(pk, sk, seed);
    unsigned char h[32];
    crypto_generichash(h, sizeof h, pk, sizeof pk, nullptr, 0);  // BLAKE2b-256
    std::memcpy(id, h, sizeof id);
    id_hex = hex(id, sizeof id);
    public_text = "faultline-ed25519-public " + id_hex + " " + b64(pk, sizeof pk) + "\n";
  }
  static std::string hex(const unsigned char *b, size_t n) {
    std::string s(2 * n + 1, '\0');
    sodium_bin2hex(s.data(), s.size(), b, n);
    s.pop_back();
    return s;
  }
  static std::string b64(const unsigned char *b, size_t n) {
    std::string s(sodium_base64_ENCODED_LEN(n, sodium_base64_VARIANT_ORIGINAL), '\0');
    sodium_bin2base64(s.data(), s.size(), b, n, sodium_base64_VARIANT_ORIGINAL);
    s.resize(std::strlen(s.c_str()));
    return s;
  }
};

using Sig = std::vector<uint8_t>;

// The 80-byte detached signature: "FLSG", version, algorithm, key id, Ed25519.
Sig sign(const Key &k, const std::vector<uint8_t> &pack, const unsigned char *id = nullptr) {
  Sig s(80, 0);
  std::memcpy(s.data(), "FLSG", 4);
  s[4] = 1;  // version 1, little-endian
  s[6] = 1;  // algorithm 1: Ed25519
  std::memcpy(s.data() + 8, id ? id : k.id, 8);
  crypto_sign_detached(s.data() + 16, nullptr, pack.data(), pack.size(), k.sk);
  return s;
}

// A verifier trusting `keys`, freed at the end of the scope.
struct Verifier {
  fl_pack_verifier *v = nullptr;
  explicit Verifier(std::vector<const Key *> keys) {
    std::vector<std::string> texts;
    for (const Key *k : keys) texts.push_back(k->public_text);
    std::vector<const char *> ptrs;
    for (const auto &t : texts) ptrs.push_back(t.c_str());
    char err[256] = "";
    REQUIRE_MESSAGE(fl_verifier_create_from_text(ptrs.data(), ptrs.size(), &v, err, sizeof err) == FL_OK, err);
  }
  ~Verifier() { fl_verifier_free(v); }
};

// 8-byte aligned copy of a pack, as open_memory needs.
struct Aligned {
  std::vector<uint64_t> mem;
  size_t size;
  explicit Aligned(const std::vector<uint8_t> &b) : mem(b.size() / 8 + 1), size(b.size()) {
    if (!b.empty()) std::memcpy(mem.data(), b.data(), b.size());
  }
  uint8_t *data() { return reinterpret_cast<uint8_t *>(mem.data()); }
};

struct Opened {
  fl_status status;
  std::string err, signer;
};

Opened open_memory(const std::vector<uint8_t> &bytes, const fl_pack_verifier *v, const Sig *sig, uint32_t flags) {
  Aligned a(bytes);
  fl_pack_options o = FL_PACK_OPTIONS_INIT;
  o.verifier = v;
  o.flags = flags;
  if (sig) {
    o.signature = sig->data();
    o.signature_size = sig->size();
  }
  fl_pack *p = nullptr;
  char err[512] = "(untouched)";
  Opened r{fl_pack_open_memory(a.data(), a.size, &o, &p, err, sizeof err), err, ""};
  CHECK((r.status == FL_OK) == (p != nullptr));
  if (p) r.signer = fl_pack_signer(p);
  fl_pack_free(p);
  return r;
}

Opened open_file(const fs::path &path, const fl_pack_verifier *v, uint32_t flags, const Sig *sig = nullptr) {
  fl_pack_options o = FL_PACK_OPTIONS_INIT;
  o.verifier = v;
  o.flags = flags;
  if (sig) {
    o.signature = sig->data();
    o.signature_size = sig->size();
  }
  fl_pack *p = nullptr;
  char err[512] = "(untouched)";
  Opened r{fl_pack_open_file(path.c_str(), &o, &p, err, sizeof err), err, ""};
  CHECK((r.status == FL_OK) == (p != nullptr));
  if (p) r.signer = fl_pack_signer(p);
  fl_pack_free(p);
  return r;
}

bool contains(const std::string &s, const std::string &part) { return s.find(part) != std::string::npos; }

// A fresh directory under the system's temporary one, removed at the end.
struct TempDir {
  fs::path path;
  TempDir() {
    static std::atomic<int> n{0};
    path = fs::temp_directory_path() / ("fl-signature-test-" + std::to_string(getpid()) + "-" + std::to_string(n++));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::vector<uint8_t> small_pack() {
  auto b = slurp_bytes(FAULTLINE_SMALL_PACK);
  REQUIRE(b.size() > 64);
  return b;
}

constexpr uint32_t kRequire = FL_PACK_REQUIRE_SIGNATURE;

}  // namespace

TEST_CASE("signatures: a signed pack opens, from memory and from PACK.sig, and names its signer") {
  Key k(1);
  Verifier v({&k});
  auto pack = small_pack();
  Sig sig = sign(k, pack);
  CHECK(fl_verifier_key_count(v.v) == 1);

  Opened m = open_memory(pack, v.v, &sig, kRequire);
  CHECK_MESSAGE(m.status == FL_OK, m.err);
  CHECK(m.signer == k.id_hex);
  CHECK(m.err.empty());
  // Without the policy, a valid signature is checked and named all the same.
  CHECK(open_memory(pack, v.v, &sig, 0).signer == k.id_hex);

  TempDir d;
  write_bytes(d.path / "p.flpack", pack.data(), pack.size());
  write_bytes(d.path / "p.flpack.sig", sig.data(), sig.size());
  Opened f = open_file(d.path / "p.flpack", v.v, kRequire);
  CHECK_MESSAGE(f.status == FL_OK, f.err);
  CHECK(f.signer == k.id_hex);

  // The signed pack scans like any other.
  fl_pack_options o = FL_PACK_OPTIONS_INIT;
  o.verifier = v.v;
  o.flags = kRequire;
  fl_pack *p = nullptr;
  REQUIRE(fl_pack_open_file((d.path / "p.flpack").c_str(), &o, &p, nullptr, 0) == FL_OK);
  fl_scanner *s = nullptr;
  REQUIRE(fl_scanner_create(p, nullptr, &s) == FL_OK);
  static const char line[] = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n";
  int events = 0;
  fl_scanner_feed(
      s, line, sizeof line - 1, [](void *ctx, const fl_event *) { return ++*static_cast<int *>(ctx), 0; }, &events);
  CHECK(events >= 1);
  fl_scanner_free(s);
  fl_pack_free(p);
  CHECK(std::string(fl_pack_signer(nullptr)).empty());
  CHECK(std::string(fl_status_str(FL_E_SIGNATURE)) == "signature missing or not valid");
}

TEST_CASE("signatures: every single-byte change of the pack is refused under the policy") {
  Key k(1);
  Verifier v({&k});
  const auto pack = small_pack();
  const Sig sig = sign(k, pack);
  Aligned a(pack);
  fl_pack_options o = FL_PACK_OPTIONS_INIT;
  o.verifier = v.v;
  o.flags = kRequire;
  o.signature = sig.data();
  o.signature_size = sig.size();
  // Every byte of the pack, header and content and the last, each with a
  // different bit flipped (i % 8), in place and restored.
  size_t refused = 0, wrong = 0;
  for (size_t i = 0; i < a.size; i++) {
    const uint8_t bit = static_cast<uint8_t>(1u << (i % 8));
    a.data()[i] ^= bit;
    fl_pack *p = nullptr;
    char err[256] = "";
    fl_status st = fl_pack_open_memory(a.data(), a.size, &o, &p, err, sizeof err);
    a.data()[i] ^= bit;
    if (st == FL_E_SIGNATURE && !p && contains(err, "bad signature"))
      refused++;
    else if (wrong++ < 5)
      FAIL_CHECK("byte " << i << " flipped: status " << st << " (" << err << ")");
    fl_pack_free(p);
  }
  CHECK(refused == a.size);
  MESSAGE(refused << " single-bit changes, one per byte of the " << a.size << "-byte pack, all refused");
  // And the untouched bytes still open: the loop restored every one.
  fl_pack *p = nullptr;
  CHECK(fl_pack_open_memory(a.data(), a.size, &o, &p, nullptr, 0) == FL_OK);
  fl_pack_free(p);
}

TEST_CASE("signatures: the signature is checked before the pack reader touches a byte") {
  Key k(1);
  Verifier v({&k});
  const auto good = small_pack();
  // Packs the reader refuses each with its own status...
  struct Case {
    const char *what;
    size_t offset;
    uint8_t value;
    fl_status reader_says;
  };
  const Case cases[] = {
      {"magic", 0, 'X', FL_E_NOT_A_PACK},
      {"format major", 4, 0x7f, FL_E_PACK_VERSION},
      {"total length", 16, 0x01, FL_E_PACK_CORRUPT},
      {"content (hash mismatch)", 200, 0x5a, FL_E_PACK_CORRUPT},
  };
  for (const Case &c : cases) {
    CAPTURE(c.what);
    auto bad = good;
    bad[c.offset] ^= c.value;
    // ...as the reader itself says without a verifier...
    CHECK(open_memory(bad, nullptr, nullptr, 0).status == c.reader_says);
    // ...and with a verifier that accepts anything, so the reader runs after it.
    fl_pack_verifier yes{[](void *, const void *, size_t, const void *, size_t, char *signer, size_t n) {
                           std::snprintf(signer, n, "anyone");
                           return FL_OK;
                         },
                         nullptr};
    Sig any(80, 0);
    CHECK(open_memory(bad, &yes, &any, kRequire).status == c.reader_says);
    // Under the policy with the real verifier: the signature's refusal, not the reader's.
    Opened r = open_memory(bad, v.v, nullptr, kRequire);
    CHECK(r.status == FL_E_SIGNATURE);
    CHECK(contains(r.err, "no signature"));
    Sig sig = sign(k, good);  // the signature of the good pack
    r = open_memory(bad, v.v, &sig, kRequire);
    CHECK(r.status == FL_E_SIGNATURE);
    CHECK(contains(r.err, "bad signature"));
    // Also without the policy: a configured verifier that refuses is never ignored.
    CHECK(open_memory(bad, v.v, &sig, 0).status == FL_E_SIGNATURE);
  }
  // The verifier sees the raw bytes first: a spy that refuses everything is
  // called once, with exactly the pack's bytes, even when they are no pack.
  struct Spy {
    int calls = 0;
    size_t size = 0;
    bool same = false;
    const std::vector<uint8_t> *expect = nullptr;
  } spy;
  std::vector<uint8_t> junk(4096, 0xee);
  spy.expect = &junk;
  fl_pack_verifier refuse{[](void *ctx, const void *bytes, size_t size, const void *, size_t, char *why, size_t n) {
                            auto *s = static_cast<Spy *>(ctx);
                            s->calls++;
                            s->size = size;
                            s->same = size == s->expect->size() && std::memcmp(bytes, s->expect->data(), size) == 0;
                            std::snprintf(why, n, "spy refuses");
                            return FL_E_SIGNATURE;
                          },
                          &spy};
  Sig any(80, 1);
  Opened r = open_memory(junk, &refuse, &any, 0);
  CHECK(r.status == FL_E_SIGNATURE);
  CHECK(contains(r.err, "spy refuses"));
  CHECK(spy.calls == 1);
  CHECK(spy.same);
  CHECK(open_memory(junk, nullptr, nullptr, 0).status == FL_E_NOT_A_PACK);  // what the reader would have said
}

TEST_CASE("signatures: truncated packs and packs with bytes appended are refused") {
  Key k(1);
  Verifier v({&k});
  const auto pack = small_pack();
  const Sig sig = sign(k, pack);
  // Every length of the header, then a dense sample, and one byte short.
  std::vector<size_t> lengths;
  for (size_t n = 0; n <= 64; n++) lengths.push_back(n);
  for (size_t n = 65; n < pack.size(); n += 97) lengths.push_back(n);
  lengths.push_back(pack.size() - 1);
  for (size_t n : lengths) {
    CAPTURE(n);
    std::vector<uint8_t> cut(pack.begin(), pack.begin() + static_cast<std::ptrdiff_t>(n));
    Opened r = open_memory(cut, v.v, &sig, kRequire);
    CHECK(r.status == FL_E_SIGNATURE);
  }
  for (size_t extra : {1u, 7u, 8u, 4096u}) {
    CAPTURE(extra);
    auto longer = pack;
    longer.insert(longer.end(), extra, 0);
    CHECK(open_memory(longer, v.v, &sig, kRequire).status == FL_E_SIGNATURE);
    CHECK(open_memory(longer, v.v, &sig, 0).status == FL_E_SIGNATURE);
  }
  // A pack signed twice over (itself followed by its own bytes): still not the signed bytes.
  auto twice = pack;
  twice.insert(twice.end(), pack.begin(), pack.end());
  CHECK(open_memory(twice, v.v, &sig, kRequire).status == FL_E_SIGNATURE);
}

TEST_CASE("signatures: a key the verifier does not trust is refused, and a key id alone is never enough") {
  Key a(1), b(2);
  const auto pack = small_pack();
  Verifier trusts_a({&a});
  Opened r = open_memory(pack, trusts_a.v, nullptr, 0);
  CHECK(r.status == FL_OK);  // unsigned, no policy: opens, signed by no one
  CHECK(r.signer.empty());

  Sig by_b = sign(b, pack);
  r = open_memory(pack, trusts_a.v, &by_b, kRequire);
  CHECK(r.status == FL_E_SIGNATURE);
  CHECK(contains(r.err, "unknown key id " + b.id_hex));
  // B's signature wearing A's key id: the id matches a trusted key, the
  // signature does not verify under it.
  Sig forged = sign(b, pack, a.id);
  r = open_memory(pack, trusts_a.v, &forged, kRequire);
  CHECK(r.status == FL_E_SIGNATURE);
  CHECK(contains(r.err, "bad signature"));
  CHECK(contains(r.err, a.id_hex));
  // A's signature with B's id: unknown id, though A is trusted.
  Sig relabelled = sign(a, pack, b.id);
  CHECK(open_memory(pack, trusts_a.v, &relabelled, kRequire).status == FL_E_SIGNATURE);
  // A signature of another pack by the trusted key.
  auto other = pack;
  other.back() ^= 1;
  Sig of_other = sign(a, other);
  CHECK(open_memory(pack, trusts_a.v, &of_other, kRequire).status == FL_E_SIGNATURE);
}

TEST_CASE("signatures: two trusted keys, the pack signed by the second") {
  Key a(1), b(2), c(3);
  const auto pack = small_pack();
  Verifier v({&a, &b});
  CHECK(fl_verifier_key_count(v.v) == 2);
  Sig by_b = sign(b, pack);
  Opened r = open_memory(pack, v.v, &by_b, kRequire);
  CHECK_MESSAGE(r.status == FL_OK, r.err);
  CHECK(r.signer == b.id_hex);
  Sig by_c = sign(c, pack);
  CHECK(open_memory(pack, v.v, &by_c, kRequire).status == FL_E_SIGNATURE);
  // The same key trusted twice changes nothing.
  Verifier twice({&b, &b});
  CHECK(open_memory(pack, twice.v, &by_b, kRequire).signer == b.id_hex);
}

TEST_CASE("signatures: malformed signatures are refused, each with its reason") {
  Key k(1);
  Verifier v({&k});
  const auto pack = small_pack();
  const Sig good = sign(k, pack);
  SUBCASE("every truncation") {
    for (size_t n = 1; n < good.size(); n++) {
      Sig cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n));
      Opened r = open_memory(pack, v.v, &cut, 0);
      CHECK(r.status == FL_E_SIGNATURE);
      CHECK(contains(r.err, std::to_string(n) + " bytes, a faultline signature has 80"));
    }
    Sig empty;
    fl_pack_options o = FL_PACK_OPTIONS_INIT;
    o.verifier = v.v;
    static const uint8_t nothing[1] = {0};
    o.signature = nothing;  // a signature of 0 bytes
    Aligned a(pack);
    fl_pack *p = nullptr;
    char err[256];
    CHECK(fl_pack_open_memory(a.data(), a.size, &o, &p, err, sizeof err) == FL_E_SIGNATURE);
    CHECK(contains(err, "empty"));
  }
  SUBCASE("extended") {
    for (size_t extra : {1u, 16u, 400u}) {
      Sig longer = good;
      longer.insert(longer.end(), extra, 0);
      CHECK(open_memory(pack, v.v, &longer, kRequire).status == FL_E_SIGNATURE);
    }
  }
  SUBCASE("every single-bit change of the 80 bytes") {
    for (size_t i = 0; i < good.size(); i++)
      for (int bit = 0; bit < 8; bit++) {
        Sig bad = good;
        bad[i] ^= static_cast<uint8_t>(1u << bit);
        CAPTURE(i);
        CAPTURE(bit);
        CHECK(open_memory(pack, v.v, &bad, kRequire).status == FL_E_SIGNATURE);
      }
  }
  SUBCASE("wrong magic, version, algorithm; unknown key id; zeros") {
    struct Case {
      size_t at;
      uint8_t value;
      const char *says;
    };
    for (const Case &c :
         {Case{0, 'X', "no \"FLSG\" magic"}, Case{4, 2, "format version 2 is not supported"}, Case{5, 1, "format version 257"},
          Case{6, 2, "algorithm 2 is not supported"}, Case{6, 0, "algorithm 0"}}) {
      Sig bad = good;
      bad[c.at] = c.value;
      Opened r = open_memory(pack, v.v, &bad, 0);
      CAPTURE(c.says);
      CHECK(r.status == FL_E_SIGNATURE);
      CHECK_MESSAGE(contains(r.err, c.says), r.err);
    }
    Sig unknown = good;
    unknown[8] ^= 0xff;
    Opened r = open_memory(pack, v.v, &unknown, 0);
    CHECK(r.status == FL_E_SIGNATURE);
    CHECK(contains(r.err, "unknown key id " + Key::hex(unknown.data() + 8, 8)));
    Sig zeros(80, 0);
    CHECK(open_memory(pack, v.v, &zeros, kRequire).status == FL_E_SIGNATURE);
  }
  SUBCASE("signature files: truncated, extended, too large, not a file") {
    TempDir d;
    const fs::path p = d.path / "p.flpack", s = d.path / "p.flpack.sig";
    write_bytes(p, pack.data(), pack.size());
    write_bytes(s, good.data(), 79);
    Opened r = open_file(p, v.v, kRequire);
    CHECK(r.status == FL_E_SIGNATURE);
    CHECK(contains(r.err, "79 bytes"));
    std::vector<uint8_t> longer(good);
    longer.push_back('\n');
    write_bytes(s, longer.data(), longer.size());
    CHECK(open_file(p, v.v, kRequire).status == FL_E_SIGNATURE);
    std::vector<uint8_t> huge(513, 'x');
    write_bytes(s, huge.data(), huge.size());
    r = open_file(p, v.v, 0);
    CHECK(r.status == FL_E_SIGNATURE);
    CHECK(contains(r.err, "larger than 512 bytes"));
    write_bytes(s, nullptr, 0);
    r = open_file(p, v.v, kRequire);
    CHECK(r.status == FL_E_SIGNATURE);
    CHECK(contains(r.err, "empty"));
    fs::remove(s);
    fs::create_directory(s);
    r = open_file(p, v.v, kRequire);
    CHECK(r.status == FL_E_SIGNATURE);
    CHECK(contains(r.err, "not a regular file"));
    fs::remove(s);
    REQUIRE(mkfifo(s.c_str(), 0600) == 0);  // must not wait for a writer
    CHECK(open_file(p, v.v, kRequire).status == FL_E_SIGNATURE);
    fs::remove(s);
    write_bytes(s, good.data(), good.size());
    CHECK(open_file(p, v.v, kRequire).status == FL_OK);
  }
}

TEST_CASE("signatures: an unsigned pack is refused under the policy and opens without it") {
  Key k(1);
  Verifier v({&k});
  const auto pack = small_pack();
  TempDir d;
  const fs::path p = d.path / "unsigned.flpack";
  write_bytes(p, pack.data(), pack.size());
  Opened r = open_file(p, v.v, kRequire);
  CHECK(r.status == FL_E_SIGNATURE);
  CHECK(contains(r.err, "no signature"));
  CHECK(contains(r.err, "unsigned.flpack.sig does not exist"));
  CHECK(open_memory(pack, v.v, nullptr, kRequire).status == FL_E_SIGNATURE);
  // Under the policy the pack is not even read: a missing pack file is
  // refused for its signature, not for the file.
  CHECK(open_file(d.path / "absent.flpack", v.v, kRequire).status == FL_E_SIGNATURE);
  // Without the policy: the verifier has nothing to check, the pack opens unsigned...
  r = open_file(p, v.v, 0);
  CHECK(r.status == FL_OK);
  CHECK(r.signer.empty());
  // ... and with neither, as in 0.1.
  CHECK(open_file(p, nullptr, 0).status == FL_OK);
  CHECK(open_memory(pack, nullptr, nullptr, 0).status == FL_OK);
}

TEST_CASE("signatures: options nothing could honour are invalid arguments") {
  Key k(1);
  Verifier v({&k});
  const auto pack = small_pack();
  const Sig sig = sign(k, pack);
  TempDir d;
  const fs::path p = d.path / "p.flpack";
  write_bytes(p, pack.data(), pack.size());
  write_bytes(d.path / "p.flpack.sig", sig.data(), sig.size());
  // Each open: memory, file, default.
  auto all = [&](const fl_pack_options &o, const char *says) {
    Aligned a(pack);
    fl_pack *out = nullptr;
    char err[256];
    CHECK(fl_pack_open_memory(a.data(), a.size, &o, &out, err, sizeof err) == FL_E_INVALID_ARG);
    CHECK_MESSAGE(contains(err, says), err);
    CHECK(fl_pack_open_file(p.c_str(), &o, &out, err, sizeof err) == FL_E_INVALID_ARG);
    CHECK_MESSAGE(contains(err, says), err);
    CHECK(fl_pack_open_default(&o, &out, err, sizeof err) == FL_E_INVALID_ARG);
    CHECK(out == nullptr);
  };
  fl_pack_options o = FL_PACK_OPTIONS_INIT;
  o.flags = kRequire;  // without a verifier
  all(o, "needs fl_pack_options.verifier");
  o = fl_pack_options FL_PACK_OPTIONS_INIT;
  o.signature = sig.data();  // a signature nothing would check
  o.signature_size = sig.size();
  all(o, "no verifier");
  o = fl_pack_options FL_PACK_OPTIONS_INIT;
  fl_pack_verifier empty{nullptr, nullptr};
  o.verifier = &empty;
  all(o, "no verify function");
  o = fl_pack_options FL_PACK_OPTIONS_INIT;
  o.verifier = v.v;
  o.signature_size = 80;  // and no bytes
  all(o, "signature is NULL");
  o = fl_pack_options FL_PACK_OPTIONS_INIT;
  o.flags = 2;  // not a flag
  all(o, "invalid fl_pack_options");
}

TEST_CASE("signatures: the embedded pack is trusted under the policy; a signature given for it is checked") {
  Key k(1);
  Verifier v({&k});
  fl_pack_options o = FL_PACK_OPTIONS_INIT;
  o.verifier = v.v;
  o.flags = kRequire;
  fl_pack *p = nullptr;
  REQUIRE(fl_pack_open_default(&o, &p, nullptr, 0) == FL_OK);
  CHECK(std::string(fl_pack_signer(p)).empty());
  fl_pack_free(p);
  Sig wrong = sign(k, small_pack());
  o.signature = wrong.data();
  o.signature_size = wrong.size();
  p = nullptr;
  char err[256];
  CHECK(fl_pack_open_default(&o, &p, err, sizeof err) == FL_E_SIGNATURE);
  CHECK(p == nullptr);
  CHECK(contains(err, "bad signature"));
}

TEST_CASE("signatures: a verifier's failures and odd answers are never taken as success") {
  const auto pack = small_pack();
  Sig any(80, 0);
  struct Answer {
    fl_status status;
    bool fill;  // writes the whole buffer without a NUL
  };
  for (Answer ans :
       {Answer{FL_E_NOMEM, false}, Answer{42, false}, Answer{FL_E_IO, true}, Answer{FL_OK, true}, Answer{FL_OK, false}}) {
    fl_pack_verifier odd{[](void *ctx, const void *, size_t, const void *, size_t, char *text, size_t n) {
                           auto *a = static_cast<Answer *>(ctx);
                           if (a->fill) std::memset(text, 'z', n);
                           return a->status;
                         },
                         &ans};
    Opened r = open_memory(pack, &odd, &any, kRequire);
    CAPTURE(ans.status);
    if (ans.status == FL_OK) {
      CHECK(r.status == FL_OK);
      CHECK(r.signer == (ans.fill ? std::string(63, 'z') : "(unnamed signer)"));
    } else {
      CHECK(r.status == (ans.status == FL_E_NOMEM ? FL_E_NOMEM : FL_E_SIGNATURE));
      CHECK(r.err.size() < 512);
    }
  }
}

TEST_CASE("signatures: the bytes of a signed pack file are the bytes verified, whatever happens to the file") {
  Key k(1);
  Verifier v({&k});
  const auto pack = small_pack();
  const Sig sig = sign(k, pack);
  TempDir d;
  const fs::path p = d.path / "p.flpack";
  write_bytes(p, pack.data(), pack.size());
  write_bytes(d.path / "p.flpack.sig", sig.data(), sig.size());
  fl_pack_options o = FL_PACK_OPTIONS_INIT;
  o.verifier = v.v;
  o.flags = kRequire;
  fl_pack *opened = nullptr;
  REQUIRE(fl_pack_open_file(p.c_str(), &o, &opened, nullptr, 0) == FL_OK);
  const std::string first = fl_pack_entry_id(opened, 0);
  // Rewritten in place with other bytes (a mapping of the file would now show
  // them), then cut short (a mapping would fault on access).
  std::vector<uint8_t> other(pack.size(), 0x41);
  {
    std::fstream f(p, std::ios::binary | std::ios::in | std::ios::out);
    f.write(reinterpret_cast<const char *>(other.data()), static_cast<std::streamsize>(other.size()));
  }
  CHECK(std::string(fl_pack_entry_id(opened, 0)) == first);
  fs::resize_file(p, 1);
  CHECK(std::string(fl_pack_entry_id(opened, 0)) == first);
  for (uint32_t i = 0; i < fl_pack_entry_count(opened); i++) CHECK(fl_pack_entry_title(opened, i) != nullptr);
  fl_pack_free(opened);
}

TEST_CASE("signatures: key files and key texts that are not one valid public key are refused, never crash") {
  Key k(1);
  TempDir d;
  auto from_file = [&](const std::string &content, std::string *err_out = nullptr) {
    const fs::path f = d.path / "k.pub";
    write_text(f, content);
    const char *paths[] = {f.c_str()};
    fl_pack_verifier *v = nullptr;
    char err[256] = "";
    fl_status st = fl_verifier_create(paths, 1, &v, err, sizeof err);
    CHECK((st == FL_OK) == (v != nullptr));
    fl_verifier_free(v);
    if (err_out) *err_out = err;
    return st;
  };
  auto from_text = [&](const std::string &text) {
    const char *texts[] = {text.c_str()};
    fl_pack_verifier *v = nullptr;
    fl_status st = fl_verifier_create_from_text(texts, 1, &v, nullptr, 0);
    CHECK((st == FL_OK) == (v != nullptr));
    fl_verifier_free(v);
    return st;
  };
  const std::string line = k.public_text.substr(0, k.public_text.size() - 1);  // without its newline
  CHECK(from_file(line + "\n") == FL_OK);
  CHECK(from_file(line) == FL_OK);
  CHECK(from_file(line + "\r\n") == FL_OK);
  CHECK(from_text(line) == FL_OK);

  std::string err;
  const std::string other_id = std::string(line).replace(25, 1, line[25] == 'f' ? "0" : "f");
  for (const std::string &bad : std::vector<std::string>{
           std::string(), line + "\n\n", line + " ", " " + line, line + "\n" + line + "\n", "faultline-ed25519-public\n",
           line.substr(0, line.size() - 1), line + "A", std::string(line).replace(25, 1, "g"),  // not hex
           other_id,                                                                            // another key's id
           std::string(line).replace(45, 1, "*"),                                               // not base64
           std::string(line).replace(0, 9, "faultlinx")}) {
    CAPTURE(bad);
    CHECK(from_file(bad) == FL_E_INVALID_ARG);
    CHECK(from_text(bad) == FL_E_INVALID_ARG);
  }
  CHECK(from_file(other_id, &err) == FL_E_INVALID_ARG);
  CHECK(contains(err, "the file is damaged"));
  // NUL bytes inside the file.
  std::string with_nul = line;
  with_nul[30] = '\0';
  CHECK(from_file(with_nul, &err) == FL_E_INVALID_ARG);
  CHECK(contains(err, "NUL"));
  // A small-order point (all zeros but one: the identity) with its own correct id.
  unsigned char identity[32] = {1};
  unsigned char h[32];
  crypto_generichash(h, sizeof h, identity, sizeof identity, nullptr, 0);
  std::string weak = "faultline-ed25519-public " + Key::hex(h, 8) + " " + Key::b64(identity, 32);
  CHECK(from_file(weak, &err) == FL_E_INVALID_ARG);
  CHECK(contains(err, "not a valid Ed25519 public key"));
  // A secret key given by mistake: refused, and not quoted.
  const std::string secret_b64 = Key::b64(k.sk, sizeof k.sk);
  CHECK(from_file("faultline-ed25519-secret " + k.id_hex + " " + secret_b64 + "\n", &err) == FL_E_INVALID_ARG);
  CHECK(contains(err, "SECRET"));
  CHECK(!contains(err, secret_b64.substr(0, 8)));
  // A large file is refused unread; so is a directory; a missing one is I/O.
  CHECK(from_file(line + std::string(5000, '\n'), &err) == FL_E_INVALID_ARG);
  CHECK(contains(err, "larger than"));
  CHECK(from_text(line + std::string(5000, ' ')) == FL_E_INVALID_ARG);
  const char *dir[] = {d.path.c_str()};
  fl_pack_verifier *v = nullptr;
  CHECK(fl_verifier_create(dir, 1, &v, nullptr, 0) == FL_E_INVALID_ARG);
  const std::string missing = (d.path / "missing.pub").string();
  const char *none[] = {missing.c_str()};
  char ebuf[256];
  CHECK(fl_verifier_create(none, 1, &v, ebuf, sizeof ebuf) == FL_E_IO);
  CHECK(contains(ebuf, "missing.pub"));
  // One bad key among good ones spoils the lot; argument checks.
  const char *mixed[] = {k.public_text.c_str(), "nonsense"};
  CHECK(fl_verifier_create_from_text(mixed, 2, &v, nullptr, 0) == FL_E_INVALID_ARG);
  CHECK(v == nullptr);
  const char *null_entry[] = {nullptr};
  CHECK(fl_verifier_create_from_text(null_entry, 1, &v, nullptr, 0) == FL_E_INVALID_ARG);
  CHECK(fl_verifier_create(null_entry, 1, &v, nullptr, 0) == FL_E_INVALID_ARG);
  CHECK(fl_verifier_create_from_text(mixed, 0, &v, nullptr, 0) == FL_E_INVALID_ARG);
  CHECK(fl_verifier_create(nullptr, 1, &v, nullptr, 0) == FL_E_INVALID_ARG);
  CHECK(fl_verifier_create(dir, 1, nullptr, nullptr, 0) == FL_E_INVALID_ARG);
  CHECK(fl_verifier_key_count(nullptr) == 0);
  fl_verifier_free(nullptr);
  fl_pack_verifier foreign{nullptr, nullptr};
  fl_verifier_free(&foreign);  // not one of ours: left alone

  // Random mutations of a good line: each is refused or, rarely, still the same key.
  std::mt19937 rng(20);
  for (int i = 0; i < 3000; i++) {
    std::string t = line;
    int edits = std::uniform_int_distribution<int>(1, 4)(rng);
    for (int e = 0; e < edits; e++) {
      size_t at = std::uniform_int_distribution<size_t>(0, t.size() - 1)(rng);
      switch (rng() % 3) {
        case 0:
          t[at] = static_cast<char>(rng() % 255 + 1);
          break;
        case 1:
          t.erase(at, 1);
          break;
        default:
          t.insert(at, 1, static_cast<char>(rng() % 255 + 1));
      }
    }
    fl_status st = from_text(t);
    CHECK((st == FL_E_INVALID_ARG || (st == FL_OK && t == line)));
  }
}

TEST_CASE("signatures: one verifier shared by four threads opening packs concurrently (threads)") {
  Key a(1), b(2);
  Verifier v({&a, &b});
  const auto pack = small_pack();
  const Sig by_a = sign(a, pack), by_b = sign(b, pack);
  auto tampered = pack;
  tampered[tampered.size() / 2] ^= 4;
  TempDir d;
  const fs::path file = d.path / "p.flpack";
  write_bytes(file, pack.data(), pack.size());
  write_bytes(d.path / "p.flpack.sig", by_b.data(), by_b.size());
  Aligned good(pack), bad(tampered);
  std::atomic<int> wrong{0}, opened{0};
  auto worker = [&](int t) {
    for (int i = 0; i < 25; i++) {
      fl_pack_options o = FL_PACK_OPTIONS_INIT;
      o.verifier = v.v;
      o.flags = FL_PACK_REQUIRE_SIGNATURE;
      const Sig &sig = (i + t) % 2 ? by_a : by_b;
      o.signature = sig.data();
      o.signature_size = sig.size();
      fl_pack *p = nullptr;
      char err[256];
      // A good pack by either key, the tampered one, and the file with its .sig.
      if (fl_pack_open_memory(good.data(), good.size, &o, &p, err, sizeof err) != FL_OK ||
          std::string(fl_pack_signer(p)) != ((i + t) % 2 ? a.id_hex : b.id_hex))
        wrong++;
      else
        opened++;
      fl_pack_free(p);
      p = nullptr;
      if (fl_pack_open_memory(bad.data(), bad.size, &o, &p, err, sizeof err) != FL_E_SIGNATURE) wrong++;
      fl_pack_free(p);
      p = nullptr;
      o.signature = nullptr;
      o.signature_size = 0;
      if (fl_pack_open_file(file.c_str(), &o, &p, err, sizeof err) != FL_OK || std::string(fl_pack_signer(p)) != b.id_hex)
        wrong++;
      fl_pack_free(p);
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; t++) threads.emplace_back(worker, t);
  for (auto &t : threads) t.join();
  CHECK(wrong == 0);
  CHECK(opened == 100);
}
