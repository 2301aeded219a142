/* A C99 consumer of the public header only: opens the default pack (or the
   pack given with -p), scans a log file in small chunks and prints one line
   per event. Built with -std=c99 -pedantic -Werror in the tests, and from
   an install tree through pkg-config and find_package. */
#include <faultline.h>
#include <stdio.h>
#include <string.h>

static int print_event(void *ctx, const fl_event *ev) {
  uint32_t i;
  unsigned long *count = (unsigned long *)ctx;
  (*count)++;
  printf("%llu %s/%s", (unsigned long long)ev->line_number, ev->entry_id, ev->pattern);
  for (i = 0; i < ev->capture_count; i++)
    printf(" %s=%.*s", ev->captures[i].name, (int)ev->captures[i].value_len, ev->captures[i].value);
  if (ev->rank >= 0) printf(" @rank=%lld", (long long)ev->rank);
  if (ev->local_rank >= 0) printf(" @local_rank=%lld", (long long)ev->local_rank);
  if (ev->host) printf(" @host=%.*s", (int)ev->host_len, ev->host);
  if (ev->pid >= 0) printf(" @pid=%lld", (long long)ev->pid);
  printf("%s\n", (ev->flags & FL_EVENT_LINE_TRUNCATED) ? " [truncated]" : "");
  return 0;
}

int main(int argc, char **argv) {
  fl_pack *pack = NULL;
  fl_scanner *scanner = NULL;
  char err[256];
  char buf[4096];
  unsigned long events = 0;
  size_t n;
  FILE *f;
  fl_status st;
  const char *log_path = argc > 1 ? argv[argc - 1] : NULL;

  if (fl_version_number() / 10000 != FL_VERSION_MAJOR) {
    fprintf(stderr, "library major %u differs from header %d\n", (unsigned)(fl_version_number() / 10000), FL_VERSION_MAJOR);
    return 2;
  }
  if (argc == 4 && strcmp(argv[1], "-p") == 0)
    st = fl_pack_open_file(argv[2], NULL, &pack, err, sizeof err);
  else if (argc == 2)
    st = fl_pack_open_default(NULL, &pack, err, sizeof err);
  else {
    fprintf(stderr, "usage: scan_log [-p PACK] LOG\n");
    return 2;
  }
  if (st != FL_OK) {
    fprintf(stderr, "cannot open pack: %s: %s\n", fl_status_str(st), err);
    return 2;
  }
  st = fl_scanner_create(pack, NULL, &scanner);
  if (st != FL_OK) {
    fprintf(stderr, "cannot create scanner: %s\n", fl_status_str(st));
    fl_pack_free(pack);
    return 2;
  }
  f = fopen(log_path, "rb");
  if (!f) {
    perror(log_path);
    fl_scanner_free(scanner);
    fl_pack_free(pack);
    return 2;
  }
  /* 777-byte reads: lines cross chunk boundaries on purpose. */
  while ((n = fread(buf, 1, 777, f)) > 0) fl_scanner_feed(scanner, buf, n, print_event, &events);
  fl_scanner_finish(scanner, print_event, &events);
  fclose(f);
  fprintf(stderr, "%lu event(s); library %s, pack %s with %u entries\n", events, fl_version_string(), fl_pack_version(pack),
          (unsigned)fl_pack_entry_count(pack));
  fl_scanner_free(scanner);
  fl_pack_free(pack);
  return events ? 0 : 1;
}
