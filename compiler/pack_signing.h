// Signing packs: Ed25519 key pairs and detached signatures, with libsodium
// (flc keygen, flc sign). Writes what libcore/verify/verifier.cpp reads: key
// files and the 80-byte signature (libcore/match/PACK_FORMAT.md "Signatures").
// Only flc links it: the runtime never signs.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace faultline {

inline constexpr size_t kSignatureBytes = 80;
using PackSignature = std::array<uint8_t, kSignatureBytes>;

// flc keygen: a new key pair as NAME.pub (0644) and NAME.key (0600, the
// secret). Refuses to overwrite either file. Returns the key id (16 hex
// digits). Throws std::runtime_error with the reason.
std::string generate_key_pair(const std::string &name);

// flc sign: the detached signature of `pack` (all its bytes) by the secret
// key in `key_path`, which must be readable by its owner only. The signature
// is checked against the key's public half before it is returned. Sets
// `key_id`. Throws std::runtime_error.
PackSignature sign_pack(const std::string &key_path, const uint8_t *pack, size_t size, std::string *key_id);

}  // namespace faultline
