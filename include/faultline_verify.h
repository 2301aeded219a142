/*
 * faultline_verify.h - trusted keys for signed packs (libfaultline_verify).
 *
 * A pack comes with a detached Ed25519 signature (`flc sign` writes
 * PACK.sig; libcore/match/PACK_FORMAT.md "Signatures"). libfaultline holds no
 * cryptography: it calls an fl_pack_verifier (include/faultline.h). This small
 * library makes one from trusted public keys (`flc keygen` writes them),
 * checking signatures with libsodium. It depends on libsodium and libc only,
 * not on libfaultline.
 *
 * TUTORIAL
 *
 *   #include <faultline.h>
 *   #include <faultline_verify.h>
 *
 *   const char *keys[] = {"/etc/faultline/site.pub"};
 *   fl_pack_verifier *v = NULL;
 *   char err[256];
 *   if (fl_verifier_create(keys, 1, &v, err, sizeof err) != FL_OK) { ... }
 *   fl_pack_options o = FL_PACK_OPTIONS_INIT;
 *   o.verifier = v;
 *   o.flags = FL_PACK_REQUIRE_SIGNATURE;         // refuse unsigned packs too
 *   fl_pack *pack = NULL;
 *   if (fl_pack_open_file("/etc/faultline/site.flpack", &o, &pack, err, sizeof err) != FL_OK)
 *     ...                                        // err: "no signature ...", "unknown key id ...", "bad signature ..."
 *   printf("signed by %s\n", fl_pack_signer(pack));  // the key id
 *   fl_verifier_free(v);                         // once no open uses it any more
 *
 * Link with -lfaultline_verify -lsodium (pkg-config faultline_verify; CMake:
 * find_package(faultline), target faultline::verify or faultline::verify_static).
 *
 * KEY FILES are one line of text:
 *   faultline-ed25519-public <key id: 16 hex digits> <base64 of the 32-byte public key>
 * The key id is the first 8 bytes of BLAKE2b-256 (libsodium crypto_generichash)
 * of the public key; a line whose id does not match its key is refused.
 */
#ifndef FAULTLINE_VERIFY_H
#define FAULTLINE_VERIFY_H

#include "faultline.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Makes a verifier that accepts signatures made by any of the keys in the
 * public key files `public_key_paths[0 .. n-1]`. Each file is read whole (a
 * key file is tiny: one over 1 KiB, not a regular file, or not exactly one
 * public key line, is refused; a secret key file is refused without being
 * quoted).
 *
 * A signature names its key by key id; it is accepted only when the Ed25519
 * signature verifies under a trusted key with that id (never on the id alone).
 *
 * @param public_key_paths  n file names; copied, need not outlive the call.
 * @param n       number of files, at least 1 (at most 4096).
 * @param out     receives the verifier (free with fl_verifier_free); NULL on failure.
 * @param errbuf  optional buffer for a message naming the file and what is wrong.
 * @param errbuf_size its size in bytes; the message is truncated to fit.
 * @return FL_OK, FL_E_INVALID_ARG (NULL, n out of range, a malformed key),
 *         FL_E_IO (a file cannot be read, or libsodium cannot start) or FL_E_NOMEM.
 * Thread-safety: always safe. The verifier is immutable: it may be shared by
 * any number of threads opening packs at once.  Since: 0.2
 */
FL_API fl_status fl_verifier_create(const char *const *public_key_paths, size_t n, fl_pack_verifier **out, char *errbuf,
                                    size_t errbuf_size);

/**
 * As fl_verifier_create, from key lines in memory: `public_keys[i]` is the
 * NUL-terminated text of a public key file (one line, a final newline
 * allowed).
 * @return FL_OK, FL_E_INVALID_ARG, FL_E_IO (libsodium cannot start) or FL_E_NOMEM.
 * Thread-safety: always safe.  Since: 0.2
 */
FL_API fl_status fl_verifier_create_from_text(const char *const *public_keys, size_t n, fl_pack_verifier **out, char *errbuf,
                                              size_t errbuf_size);

/** Number of trusted keys of a verifier made here (0 for NULL).  Since: 0.2 */
FL_API size_t fl_verifier_key_count(const fl_pack_verifier *verifier);

/**
 * Frees a verifier made by fl_verifier_create*, once no open is using it (a
 * pack keeps no reference to its verifier: packs opened with it stay valid).
 * NULL is a no-op; a verifier made elsewhere must not be passed.
 * Thread-safety: not while another thread uses the verifier.  Since: 0.2
 */
FL_API void fl_verifier_free(fl_pack_verifier *verifier);

#ifdef __cplusplus
}
#endif

#endif /* FAULTLINE_VERIFY_H */
