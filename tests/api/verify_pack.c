/* A C99 consumer of signed packs through the public headers only: opens PACK
   under the require-signed policy with the trusted public keys given, reads
   PACK.sig, and prints the signer. Exit 0 when the pack opens, 1 when it is
   refused (the library's message on stderr), 2 on a usage or key error.
   Built with -std=c99 -pedantic -Werror in the tests, and from an install
   tree through pkg-config and find_package (faultline::verify). */
#include <faultline.h>
#include <faultline_verify.h>
#include <stdio.h>

int main(int argc, char **argv) {
  fl_pack_verifier *verifier = NULL;
  fl_pack_options opts = FL_PACK_OPTIONS_INIT;
  fl_pack *pack = NULL;
  char err[512];
  fl_status st;

  if (argc < 3) {
    fprintf(stderr, "usage: verify_pack KEY.pub... PACK\n");
    return 2;
  }
  st = fl_verifier_create((const char *const *)(argv + 1), (size_t)(argc - 2), &verifier, err, sizeof err);
  if (st != FL_OK) {
    fprintf(stderr, "verify_pack: %s: %s\n", fl_status_str(st), err);
    return 2;
  }
  opts.verifier = verifier;
  opts.flags = FL_PACK_REQUIRE_SIGNATURE;
  st = fl_pack_open_file(argv[argc - 1], &opts, &pack, err, sizeof err);
  fl_verifier_free(verifier); /* the pack keeps no reference to it */
  if (st != FL_OK) {
    fprintf(stderr, "verify_pack: %s: %s: %s\n", argv[argc - 1], fl_status_str(st), err);
    return 1;
  }
  printf("%s: signed by %s, %u entries\n", argv[argc - 1], fl_pack_signer(pack), (unsigned)fl_pack_entry_count(pack));
  fl_pack_free(pack);
  return 0;
}
