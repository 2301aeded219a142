// libfaultline_verify: trusted public keys and the pack signature check
// (include/faultline_verify.h). The reader of what flc writes in
// compiler/pack_signing.cpp: key files and detached signatures
// (libcore/match/PACK_FORMAT.md "Signatures").
//
// It is the one place of the runtime that holds cryptography, all of it
// libsodium's, so that libfaultline stays dependency-free. It includes only the
// public headers: nothing of libcore's layers.
//
// Everything it reads is untrusted: key files (any size, any bytes, NULs) and
// signatures (any size, any bytes). Every check on them is a real branch.
#include <fcntl.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "faultline.h"
#include "faultline_verify.h"

namespace {

// ---- The formats ------------------------------------------------------------

constexpr char kPublicTag[] = "faultline-ed25519-public";
constexpr char kSecretTag[] = "faultline-ed25519-secret";
constexpr size_t kKeyIdBytes = 8;
constexpr size_t kKeyIdHex = 2 * kKeyIdBytes;
constexpr size_t kPublicKeyB64 = 44;  // base64 (original, padded) of 32 bytes

// The detached signature, exactly 80 bytes, little-endian.
constexpr size_t kSigBytes = 80;
constexpr char kSigMagic[4] = {'F', 'L', 'S', 'G'};  // 0
constexpr size_t kSigVersionAt = 4;                  // u16: 1
constexpr size_t kSigAlgorithmAt = 6;                // u16: 1 = Ed25519
constexpr size_t kSigKeyIdAt = 8;                    // 8 bytes
constexpr size_t kSigEd25519At = 16;                 // 64 bytes: crypto_sign_detached over the whole pack
constexpr uint16_t kSigVersion = 1;
constexpr uint16_t kSigEd25519 = 1;

static_assert(crypto_sign_PUBLICKEYBYTES == 32 && crypto_sign_BYTES == 64, "Ed25519 sizes");
static_assert(kSigEd25519At + crypto_sign_BYTES == kSigBytes, "the signature layout is 80 bytes");

// A key file is one line of under 100 bytes: anything much larger is refused unread.
constexpr size_t kMaxKeyFileBytes = 1024;
constexpr size_t kMaxKeys = 4096;

// ---- The verifier -------------------------------------------------------------

struct TrustedKey {
  unsigned char pk[crypto_sign_PUBLICKEYBYTES];
  unsigned char id[kKeyIdBytes];
};

// What fl_verifier_create returns a pointer to (its first member). Immutable
// once made: the callback only reads it, from any number of threads.
struct Verifier {
  fl_pack_verifier pub;  // first: the caller's fl_pack_verifier *; pub.ctx points here
  size_t count;
  TrustedKey *keys;
};

void say(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void say(char *buf, size_t size, const char *fmt, ...) {
  if (!buf || size == 0) return;
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, size, fmt, ap);
  va_end(ap);
}

void key_id_of(const unsigned char *pk, unsigned char *id) {
  unsigned char h[crypto_generichash_BYTES];  // 32: BLAKE2b-256
  crypto_generichash(h, sizeof h, pk, crypto_sign_PUBLICKEYBYTES, nullptr, 0);
  std::memcpy(id, h, kKeyIdBytes);
}

void id_hex(const unsigned char *id, char *hex /* kKeyIdHex + 1 */) { sodium_bin2hex(hex, kKeyIdHex + 1, id, kKeyIdBytes); }

uint16_t le16(const unsigned char *p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }

// One public key line: "faultline-ed25519-public <16 hex> <44 base64>", then
// at most one line break. `why` says what is wrong, quoting nothing of the
// text (it may be a secret key given by mistake).
bool parse_public_key(const char *text, size_t len, TrustedKey *out, char *why, size_t why_size) {
  if (std::memchr(text, '\0', len)) {
    say(why, why_size, "holds a NUL byte: not a faultline public key");
    return false;
  }
  if (len >= 2 && text[len - 2] == '\r' && text[len - 1] == '\n')
    len -= 2;
  else if (len >= 1 && text[len - 1] == '\n')
    len -= 1;
  const size_t tag = sizeof kPublicTag - 1;
  if (len >= sizeof kSecretTag - 1 && std::memcmp(text, kSecretTag, sizeof kSecretTag - 1) == 0) {
    say(why, why_size, "is a SECRET key: trust the public key (the .pub file flc keygen wrote beside it)");
    return false;
  }
  if (len < tag || std::memcmp(text, kPublicTag, tag) != 0) {
    say(why, why_size, "does not start with \"%s\": not a faultline public key", kPublicTag);
    return false;
  }
  if (len != tag + 1 + kKeyIdHex + 1 + kPublicKeyB64 || text[tag] != ' ' || text[tag + 1 + kKeyIdHex] != ' ') {
    say(why, why_size, "is not one line \"%s <key id: 16 hex digits> <base64 of 32 bytes>\"", kPublicTag);
    return false;
  }
  const char *hex = text + tag + 1, *b64 = hex + kKeyIdHex + 1;
  // Lower-case hex, as flc writes it: one text per key.
  for (size_t i = 0; i < kKeyIdHex; i++)
    if (!((hex[i] >= '0' && hex[i] <= '9') || (hex[i] >= 'a' && hex[i] <= 'f'))) {
      say(why, why_size, "has a key id that is not 16 lower-case hex digits");
      return false;
    }
  unsigned char id[kKeyIdBytes];
  size_t n = 0;
  const char *end = nullptr;
  if (sodium_hex2bin(id, sizeof id, hex, kKeyIdHex, nullptr, &n, &end) != 0 || n != sizeof id || end != hex + kKeyIdHex) {
    say(why, why_size, "has a key id that is not 16 hex digits");
    return false;
  }
  if (sodium_base642bin(out->pk, sizeof out->pk, b64, kPublicKeyB64, nullptr, &n, &end, sodium_base64_VARIANT_ORIGINAL) != 0 ||
      n != sizeof out->pk || end != b64 + kPublicKeyB64) {
    say(why, why_size, "has a key that is not the base64 of 32 bytes");
    return false;
  }
  // A point of small order or off the curve verifies forgeries; libsodium
  // refuses them when verifying too, but a bad key is better refused here.
  if (!crypto_core_ed25519_is_valid_point(out->pk)) {
    say(why, why_size, "is not a valid Ed25519 public key");
    return false;
  }
  key_id_of(out->pk, out->id);
  if (sodium_memcmp(id, out->id, sizeof id) != 0) {
    char want[kKeyIdHex + 1];
    id_hex(out->id, want);
    say(why, why_size, "names key id %.16s but its key's id is %s: the file is damaged", hex, want);
    return false;
  }
  return true;
}

// read(2) until `n` bytes or end of file; -1 on error.
ssize_t read_fully(int fd, char *buf, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = read(fd, buf + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -1;
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  return static_cast<ssize_t>(got);
}

// A key file, whole, bounded: one open, fstat on it, at most kMaxKeyFileBytes + 1 read.
fl_status read_key_file(const char *path, char *buf, size_t *len, char *errbuf, size_t errbuf_size) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);  // O_NONBLOCK: a FIFO does not wait for a writer
  if (fd < 0) {
    say(errbuf, errbuf_size, "cannot open key file %s: %s", path, std::strerror(errno));
    return FL_E_IO;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    say(errbuf, errbuf_size, "key file %s is not a regular file", path);
    close(fd);
    return FL_E_INVALID_ARG;
  }
  ssize_t got = st.st_size > static_cast<off_t>(kMaxKeyFileBytes) ? static_cast<ssize_t>(kMaxKeyFileBytes) + 1
                                                                  : read_fully(fd, buf, kMaxKeyFileBytes + 1);
  int saved = errno;
  close(fd);
  if (got < 0) {
    say(errbuf, errbuf_size, "cannot read key file %s: %s", path, std::strerror(saved));
    return FL_E_IO;
  }
  if (static_cast<size_t>(got) > kMaxKeyFileBytes) {
    say(errbuf, errbuf_size, "key file %s is larger than %zu bytes: not a faultline public key", path, kMaxKeyFileBytes);
    return FL_E_INVALID_ARG;
  }
  *len = static_cast<size_t>(got);
  return FL_OK;
}

fl_status verify_pack(void *ctx, const void *pack_bytes, size_t pack_size, const void *sig_bytes, size_t sig_size, char *signer,
                      size_t signer_size) {
  const auto *v = static_cast<const Verifier *>(ctx);
  if (signer && signer_size) signer[0] = '\0';
  if (!v || (!pack_bytes && pack_size) || !sig_bytes) {
    say(signer, signer_size, "invalid arguments to the verifier");
    return FL_E_SIGNATURE;
  }
  const auto *sig = static_cast<const unsigned char *>(sig_bytes);
  if (sig_size != kSigBytes) {
    say(signer, signer_size, "bad signature: %zu bytes, a faultline signature has %zu", sig_size, kSigBytes);
    return FL_E_SIGNATURE;
  }
  if (std::memcmp(sig, kSigMagic, sizeof kSigMagic) != 0) {
    say(signer, signer_size, "bad signature: not a faultline signature (no \"FLSG\" magic)");
    return FL_E_SIGNATURE;
  }
  if (uint16_t version = le16(sig + kSigVersionAt); version != kSigVersion) {
    say(signer, signer_size, "bad signature: format version %u is not supported (this library reads %u)", version, kSigVersion);
    return FL_E_SIGNATURE;
  }
  if (uint16_t algorithm = le16(sig + kSigAlgorithmAt); algorithm != kSigEd25519) {
    say(signer, signer_size, "bad signature: algorithm %u is not supported (1 = Ed25519)", algorithm);
    return FL_E_SIGNATURE;
  }
  const unsigned char *id = sig + kSigKeyIdAt;
  char hex[kKeyIdHex + 1];
  id_hex(id, hex);
  // Every trusted key with this id is tried (two keys may share an id: it is
  // 64 bits); the signature decides, never the id.
  bool known = false;
  for (size_t i = 0; i < v->count; i++) {
    const TrustedKey &k = v->keys[i];
    if (sodium_memcmp(k.id, id, kKeyIdBytes) != 0) continue;
    known = true;
    if (crypto_sign_verify_detached(sig + kSigEd25519At, static_cast<const unsigned char *>(pack_bytes), pack_size, k.pk) == 0) {
      say(signer, signer_size, "%s", hex);
      return FL_OK;
    }
  }
  if (!known)
    say(signer, signer_size, "unknown key id %s (not among the %zu trusted key%s)", hex, v->count, v->count == 1 ? "" : "s");
  else
    say(signer, signer_size, "bad signature: it does not verify under trusted key %s (the pack or the signature was changed)",
        hex);
  return FL_E_SIGNATURE;
}

// Makes the verifier from n key texts, each given by `get` (which may fail).
template <typename Get>
fl_status create(size_t n, fl_pack_verifier **out, char *errbuf, size_t errbuf_size, Get get) {
  if (!out) return FL_E_INVALID_ARG;
  *out = nullptr;
  say(errbuf, errbuf_size, "%s", "");
  if (n == 0 || n > kMaxKeys) {
    say(errbuf, errbuf_size, "%zu trusted keys: give 1 to %zu", n, kMaxKeys);
    return FL_E_INVALID_ARG;
  }
  // Thread-safe, and a no-op after the first call (libsodium's documentation).
  if (sodium_init() < 0) {
    say(errbuf, errbuf_size, "libsodium cannot be initialised");
    return FL_E_IO;
  }
  auto *v = static_cast<Verifier *>(std::calloc(1, sizeof(Verifier)));
  auto *keys = static_cast<TrustedKey *>(std::calloc(n, sizeof(TrustedKey)));
  if (!v || !keys) {
    std::free(v);
    std::free(keys);
    say(errbuf, errbuf_size, "out of memory");
    return FL_E_NOMEM;
  }
  for (size_t i = 0; i < n; i++) {
    fl_status st = get(i, &keys[i], errbuf, errbuf_size);
    if (st != FL_OK) {
      std::free(v);
      std::free(keys);
      return st;
    }
  }
  v->pub.verify = verify_pack;
  v->pub.ctx = v;
  v->count = n;
  v->keys = keys;
  *out = &v->pub;
  return FL_OK;
}

}  // namespace

extern "C" {

fl_status fl_verifier_create(const char *const *public_key_paths, size_t n, fl_pack_verifier **out, char *errbuf,
                             size_t errbuf_size) {
  if (!public_key_paths) {
    if (out) *out = nullptr;
    say(errbuf, errbuf_size, "public_key_paths is NULL");
    return FL_E_INVALID_ARG;
  }
  return create(n, out, errbuf, errbuf_size, [&](size_t i, TrustedKey *key, char *eb, size_t ebs) {
    const char *path = public_key_paths[i];
    if (!path) {
      say(eb, ebs, "public_key_paths[%zu] is NULL", i);
      return FL_E_INVALID_ARG;
    }
    char text[kMaxKeyFileBytes + 1];
    size_t len = 0;
    if (fl_status st = read_key_file(path, text, &len, eb, ebs); st != FL_OK) return st;
    char why[160];
    bool ok = parse_public_key(text, len, key, why, sizeof why);
    sodium_memzero(text, sizeof text);  // it may have been a secret key given by mistake
    if (!ok) {
      say(eb, ebs, "key file %s %s", path, why);
      return FL_E_INVALID_ARG;
    }
    return FL_OK;
  });
}

fl_status fl_verifier_create_from_text(const char *const *public_keys, size_t n, fl_pack_verifier **out, char *errbuf,
                                       size_t errbuf_size) {
  if (!public_keys) {
    if (out) *out = nullptr;
    say(errbuf, errbuf_size, "public_keys is NULL");
    return FL_E_INVALID_ARG;
  }
  return create(n, out, errbuf, errbuf_size, [&](size_t i, TrustedKey *key, char *eb, size_t ebs) {
    const char *text = public_keys[i];
    if (!text) {
      say(eb, ebs, "public_keys[%zu] is NULL", i);
      return FL_E_INVALID_ARG;
    }
    // Bounded: a key line is short, and the text need not be read past that.
    size_t len = strnlen(text, kMaxKeyFileBytes + 1);
    char why[160];
    if (len > kMaxKeyFileBytes) {
      say(eb, ebs, "public key %zu is longer than %zu bytes: not a faultline public key", i, kMaxKeyFileBytes);
      return FL_E_INVALID_ARG;
    }
    if (!parse_public_key(text, len, key, why, sizeof why)) {
      say(eb, ebs, "public key %zu %s", i, why);
      return FL_E_INVALID_ARG;
    }
    return FL_OK;
  });
}

size_t fl_verifier_key_count(const fl_pack_verifier *verifier) {
  if (!verifier || verifier->ctx != verifier) return 0;
  return reinterpret_cast<const Verifier *>(verifier)->count;
}

void fl_verifier_free(fl_pack_verifier *verifier) {
  // Ours point their ctx at themselves (a cheap guard against a caller's own struct).
  if (!verifier || verifier->ctx != verifier) return;
  auto *v = reinterpret_cast<Verifier *>(verifier);
  std::free(v->keys);
  std::free(v);
}

}  // extern "C"
