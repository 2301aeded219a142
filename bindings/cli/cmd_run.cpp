// run: the launcher wrapper. Runs a command, passes its stdout and stderr
// through unchanged and live, diagnoses them on the way in bounded memory,
// and when the command fails prints the diagnosis (and writes --report).
// Exits with the command's own status; SIGINT/SIGTERM/SIGHUP go to the child.
//
// Faults it must survive (tests/golden/run_faults_test.py):
// - the command killed by a signal: exit 128+N, diagnosis and report as usual;
// - the command exits while another process it started still holds its
//   stdout or stderr: the exit, not the pipes' EOF, ends the run (after
//   draining for --grace seconds), or a stray `sleep 1000 &` would hang it;
// - our own stdout or stderr closed (`faultline run -- cmd | head -1`): that
//   stream stops being forwarded and its pipe is closed, so the command gets
//   EPIPE/SIGPIPE on its next write as it would without the wrapper; the
//   other stream and the diagnosis go on.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

#include "child_process.h"
#include "commands.h"
#include "faultline.h"
#include "output_relay.h"

namespace cli {

namespace {

int usage(int status) {
  std::fprintf(status ? stderr : stdout,
               "usage: faultline run [--report FILE] [--quiet] [--grace SECONDS] [--] COMMAND [ARGS...]\n"
               "Runs COMMAND, passing its output through unchanged; if it fails, prints the diagnosis on stderr\n"
               "(and writes the JSON report to FILE). Exits with COMMAND's status (128+N if killed by signal N).\n"
               "SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to faultline are forwarded to COMMAND (not those from\n"
               "the terminal, e.g. Ctrl-C: COMMAND already got them).\n"
               "When COMMAND exits but a process it left behind still holds its stdout or stderr, the output is\n"
               "passed through for SECONDS more (default 5), then faultline reports and exits; that process\n"
               "then gets EPIPE if it writes. If faultline's own stdout or stderr is closed (| head), COMMAND\n"
               "gets EPIPE on that stream as it would without faultline, and the diagnosis goes on.\n"
               "Examples:\n"
               "  faultline run -- torchrun --nproc-per-node 8 train.py\n"
               "  faultline run --report /dev/termination-log -- python train.py   # Kubernetes\n");
  return status;
}

}  // namespace

int cmd_run(int argc, char **argv) {
  std::string report_path;
  bool quiet = false;
  double grace = 5.0;
  int i = 1;
  for (; i < argc; i++) {
    if (!std::strcmp(argv[i], "--")) {
      i++;
      break;
    }
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) return usage(0);
    if (!std::strcmp(argv[i], "--report") && i + 1 < argc) report_path = argv[++i];
    else if (!std::strcmp(argv[i], "--quiet")) quiet = true;
    else if (!std::strcmp(argv[i], "--grace") && i + 1 < argc) {
      char *end = nullptr;
      grace = std::strtod(argv[++i], &end);
      if (end == argv[i] || *end || !(grace >= 0 && grace <= 86400)) return usage(kExitError);
    } else if (argv[i][0] == '-') return usage(kExitError);
    else break;
  }
  if (i >= argc) return usage(kExitError);

  fl_pack *pack = nullptr;
  char err[256];
  if (fl_pack_open_default(nullptr, &pack, err, sizeof err) != FL_OK) {
    std::fprintf(stderr, "faultline run: %s\n", err);
    return kExitError;
  }
  // One diagnoser per stream: chunks of stdout and stderr arrive interleaved,
  // each stream's lines must stay whole. They are merged at the end.
  fl_diagnoser *out_d = nullptr, *err_d = nullptr;
  if (fl_diagnoser_create(pack, nullptr, &out_d) != FL_OK || fl_diagnoser_create(pack, nullptr, &err_d) != FL_OK) {
    std::fprintf(stderr, "faultline run: out of memory\n");
    return kExitError;
  }
  fl_diagnoser_begin_source(out_d, "stdout");
  fl_diagnoser_begin_source(err_d, "stderr");

  Child child;
  if (!start_child(argv + i, &child)) return kExitError;

  if (relay_output(child, out_d, err_d, grace) && !quiet)
    std::fprintf(stderr,
                 "faultline run: the command exited but another process still holds its output; "
                 "stopped reading after %g s (--grace)\n",
                 grace);
  wait_for_exit(child);
  int status = exit_status(child);

  const void *part = nullptr;
  size_t part_len = 0;
  if (fl_diagnoser_partial(err_d, &part, &part_len) == FL_OK) fl_diagnoser_merge_partial(out_d, part, part_len);
  if (status != 0 && !quiet) {
    const char *text = nullptr;
    if (fl_diagnoser_report(out_d, isatty(2) && !std::getenv("NO_COLOR") ? FL_REPORT_TEXT_COLOR : FL_REPORT_TEXT, &text,
                            nullptr) == FL_OK) {
      std::fprintf(stderr, "\n==== faultline: the command exited with status %d ====\n%s", status, text);
    }
  }
  if (!report_path.empty()) {
    const char *json = nullptr;
    size_t len = 0;
    FILE *f = nullptr;
    bool ok = fl_diagnoser_report(out_d, FL_REPORT_JSON, &json, &len) == FL_OK && (f = std::fopen(report_path.c_str(), "w"));
    if (f) {
      ok = std::fwrite(json, 1, len, f) == len;
      ok = std::fclose(f) == 0 && ok;  // a full disk shows here too
    }
    if (!ok) {
      std::fprintf(stderr, "faultline run: cannot write %s\n", report_path.c_str());
    }
  }
  fl_diagnoser_free(out_d);
  fl_diagnoser_free(err_d);
  fl_pack_free(pack);
  return status;
}

}  // namespace cli
