#include "pack_signing.h"

#include <fcntl.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace faultline {

namespace {

constexpr char kPublicTag[] = "faultline-ed25519-public";
constexpr char kSecretTag[] = "faultline-ed25519-secret";
constexpr size_t kKeyIdBytes = 8;
constexpr size_t kMaxKeyFileBytes = 1024;  // as the runtime: a key file is one short line

static_assert(crypto_sign_PUBLICKEYBYTES == 32 && crypto_sign_SECRETKEYBYTES == 64 && crypto_sign_BYTES == 64,
              "Ed25519 sizes (PACK_FORMAT.md)");
static_assert(16 + crypto_sign_BYTES == kSignatureBytes, "the signature is 80 bytes");

[[noreturn]] void fail(const std::string &why) { throw std::runtime_error(why); }

void init_sodium() {
  if (sodium_init() < 0) fail("libsodium cannot be initialised");
}

// Wipes a secret when it goes out of scope, however the scope is left.
template <size_t N>
struct Secret {
  unsigned char bytes[N];
  Secret() { sodium_memzero(bytes, N); }
  ~Secret() { sodium_memzero(bytes, N); }
  Secret(const Secret &) = delete;
  Secret &operator=(const Secret &) = delete;
};

std::array<unsigned char, kKeyIdBytes> key_id_of(const unsigned char *pk) {
  unsigned char h[crypto_generichash_BYTES];
  crypto_generichash(h, sizeof h, pk, crypto_sign_PUBLICKEYBYTES, nullptr, 0);
  std::array<unsigned char, kKeyIdBytes> id;
  std::memcpy(id.data(), h, id.size());
  return id;
}

std::string hex(const unsigned char *b, size_t n) {
  std::string s(2 * n + 1, '\0');
  sodium_bin2hex(s.data(), s.size(), b, n);
  s.pop_back();
  return s;
}

std::string base64(const unsigned char *b, size_t n) {
  std::string s(sodium_base64_ENCODED_LEN(n, sodium_base64_VARIANT_ORIGINAL), '\0');
  sodium_bin2base64(s.data(), s.size(), b, n, sodium_base64_VARIANT_ORIGINAL);
  s.resize(std::strlen(s.c_str()));
  return s;
}

// Creates `path` with exactly `mode`, refusing an existing file (O_EXCL: no
// symlink followed, nothing overwritten), and writes `text`.
void write_new_file(const std::string &path, const std::string &text, mode_t mode) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) fail(errno == EEXIST ? path + " exists: not overwritten" : "cannot create " + path + ": " + std::strerror(errno));
  bool ok = fchmod(fd, mode) == 0;  // the umask may have taken bits; never added any
  for (size_t at = 0; ok && at < text.size();) {
    ssize_t w = write(fd, text.data() + at, text.size() - at);
    if (w < 0 && errno == EINTR) continue;
    ok = w > 0;
    if (ok) at += static_cast<size_t>(w);
  }
  ok = fsync(fd) == 0 && ok;
  ok = close(fd) == 0 && ok;
  if (!ok) {
    unlink(path.c_str());
    fail("cannot write " + path + ": " + std::strerror(errno));
  }
}

// Reads the secret key file: private to its owner (like ssh, a key others can
// read or write is refused), bounded, one line.
void read_secret_key(const std::string &path, Secret<crypto_sign_SECRETKEYBYTES> *sk,
                     std::array<unsigned char, kKeyIdBytes> *id) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) fail("cannot open " + path + ": " + std::strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    fail(path + " is not a regular file");
  }
  if ((st.st_mode & 077) != 0) {
    close(fd);
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    fail(path + " is accessible by others (mode " + mode + "): a secret key must be private to its owner (chmod 600 " + path +
         ")");
  }
  Secret<kMaxKeyFileBytes + 1> text;
  size_t len = 0;
  while (len < sizeof text.bytes) {
    ssize_t r = read(fd, text.bytes + len, sizeof text.bytes - len);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      close(fd);
      fail("cannot read " + path + ": " + std::strerror(errno));
    }
    if (r == 0) break;
    len += static_cast<size_t>(r);
  }
  close(fd);
  if (len > kMaxKeyFileBytes) fail(path + " is larger than a key file: not a faultline secret key");
  const char *t = reinterpret_cast<const char *>(text.bytes);
  if (len >= 1 && t[len - 1] == '\n') len--;
  if (len >= 1 && t[len - 1] == '\r') len--;
  const size_t tag = sizeof kSecretTag - 1,
               b64_len = sodium_base64_ENCODED_LEN(crypto_sign_SECRETKEYBYTES, sodium_base64_VARIANT_ORIGINAL) - 1;
  if (len >= sizeof kPublicTag - 1 && std::memcmp(t, kPublicTag, sizeof kPublicTag - 1) == 0)
    fail(path + " is a public key: sign with the secret one (the .key file flc keygen wrote)");
  if (len != tag + 1 + 2 * kKeyIdBytes + 1 + b64_len || std::memcmp(t, kSecretTag, tag) != 0 || t[tag] != ' ' ||
      t[tag + 1 + 2 * kKeyIdBytes] != ' ')
    fail(path + " is not one line \"" + kSecretTag + " <key id> <base64 of 64 bytes>\"");
  size_t n = 0;
  const char *end = nullptr;
  const char *hex_at = t + tag + 1, *b64 = hex_at + 2 * kKeyIdBytes + 1;
  if (sodium_hex2bin(id->data(), id->size(), hex_at, 2 * kKeyIdBytes, nullptr, &n, &end) != 0 || n != id->size() ||
      end != hex_at + 2 * kKeyIdBytes)
    fail(path + ": the key id is not 16 hex digits");
  if (sodium_base642bin(sk->bytes, sizeof sk->bytes, b64, b64_len, nullptr, &n, &end, sodium_base64_VARIANT_ORIGINAL) != 0 ||
      n != sizeof sk->bytes || end != b64 + b64_len)
    fail(path + ": the key is not the base64 of 64 bytes");
  // libsodium's secret key is the seed and the public key: both must agree,
  // and the key id must be the public key's.
  Secret<crypto_sign_SECRETKEYBYTES> derived;
  unsigned char pk[crypto_sign_PUBLICKEYBYTES];
  crypto_sign_seed_keypair(pk, derived.bytes, sk->bytes);
  if (sodium_memcmp(derived.bytes, sk->bytes, sizeof sk->bytes) != 0)
    fail(path + ": its public half does not belong to its seed: the file is damaged");
  if (key_id_of(pk) != *id) fail(path + ": the key id does not match the key: the file is damaged");
}

}  // namespace

std::string generate_key_pair(const std::string &name) {
  init_sodium();
  const std::string pub_path = name + ".pub", key_path = name + ".key";
  struct stat st;
  for (const std::string &p : {pub_path, key_path})
    if (lstat(p.c_str(), &st) == 0) fail(p + " exists: not overwritten (choose another name, or remove it)");
  unsigned char pk[crypto_sign_PUBLICKEYBYTES];
  Secret<crypto_sign_SECRETKEYBYTES> sk;
  crypto_sign_keypair(pk, sk.bytes);
  const auto id = key_id_of(pk);
  const std::string id_hex = hex(id.data(), id.size());
  std::string secret_line = std::string(kSecretTag) + " " + id_hex + " " + base64(sk.bytes, sizeof sk.bytes) + "\n";
  try {
    write_new_file(key_path, secret_line, 0600);
  } catch (...) {
    sodium_memzero(secret_line.data(), secret_line.size());
    throw;
  }
  sodium_memzero(secret_line.data(), secret_line.size());
  try {
    write_new_file(pub_path, std::string(kPublicTag) + " " + id_hex + " " + base64(pk, sizeof pk) + "\n", 0644);
  } catch (...) {
    unlink(key_path.c_str());  // no secret without its public half
    throw;
  }
  return id_hex;
}

PackSignature sign_pack(const std::string &key_path, const uint8_t *pack, size_t size, std::string *key_id) {
  init_sodium();
  Secret<crypto_sign_SECRETKEYBYTES> sk;
  std::array<unsigned char, kKeyIdBytes> id;
  read_secret_key(key_path, &sk, &id);
  // The layout of PACK_FORMAT.md "Signatures": magic, version 1, algorithm 1
  // (Ed25519), key id, and the Ed25519 signature of every byte of the pack.
  PackSignature sig{};
  std::memcpy(sig.data(), "FLSG", 4);
  sig[4] = 1, sig[5] = 0;
  sig[6] = 1, sig[7] = 0;
  std::memcpy(sig.data() + 8, id.data(), id.size());
  if (crypto_sign_detached(sig.data() + 16, nullptr, pack, size, sk.bytes) != 0) fail("signing failed");
  // The public key is the secret key's second half (checked when read).
  if (crypto_sign_verify_detached(sig.data() + 16, pack, size, sk.bytes + crypto_sign_SEEDBYTES) != 0)
    fail("the signature just made does not verify");
  *key_id = hex(id.data(), id.size());
  return sig;
}

}  // namespace faultline
