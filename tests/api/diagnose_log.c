/* diagnose_log: a complete C99 launcher-side example of the diagnosis API.
 * Diagnoses the logs given as arguments (one source each) with the embedded
 * pack, prints the one-line summary and the decision fields, and exits like
 * `faultline diagnose`: 0 failure (or inconclusive), 1 no failure, 2 error. */
#include <stdio.h>
#include <string.h>

#include "faultline.h"

static int feed_file(fl_diagnoser *d, const char *path) {
  char buf[65536];
  size_t n;
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  if (fl_diagnoser_begin_source(d, path) != FL_OK) {
    fclose(f);
    return -1;
  }
  while ((n = fread(buf, 1, sizeof buf, f)) > 0)
    if (fl_diagnoser_feed(d, buf, n) != FL_OK) break;
  fclose(f);
  return fl_diagnoser_end_source(d) == FL_OK ? 0 : -1;
}

int main(int argc, char **argv) {
  fl_pack *pack = NULL;
  fl_diagnoser *d = NULL;
  fl_diagnosis r;
  const char *summary = NULL;
  char err[256];
  int i, status = 2;

  if (argc < 2) {
    fprintf(stderr, "usage: %s LOG...\n", argv[0]);
    return 2;
  }
  if (fl_pack_open_default(NULL, &pack, err, sizeof err) != FL_OK) {
    fprintf(stderr, "pack: %s\n", err);
    return 2;
  }
  if (fl_diagnoser_create(pack, NULL, &d) != FL_OK) goto done;
  for (i = 1; i < argc; i++)
    if (feed_file(d, argv[i]) != 0) {
      fprintf(stderr, "%s: cannot read\n", argv[i]);
      goto done;
    }
  if (fl_diagnoser_report(d, FL_REPORT_SUMMARY, &summary, NULL) != FL_OK) goto done;
  printf("%s\n", summary);
  memset(&r, 0, sizeof r);
  r.struct_size = (uint32_t)sizeof r;
  if (fl_diagnoser_result(d, &r) != FL_OK) goto done;
  printf("verdict=%d entry=%s rank=%lld host=%s action=%s retry=%u fingerprint=%s\n", (int)r.verdict,
         r.entry == UINT32_MAX ? "-" : fl_pack_entry_id(pack, r.entry), (long long)r.rank, r.host[0] ? r.host : "-", r.action,
         (unsigned)r.retry, r.fingerprint[0] ? r.fingerprint : "-");
  status = r.verdict == FL_VERDICT_NO_FAILURE ? 1 : 0;
done:
  fl_diagnoser_free(d);
  fl_pack_free(pack);
  return status;
}
