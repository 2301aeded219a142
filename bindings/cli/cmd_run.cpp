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
// - a command that writes faster than it can be diagnosed (key-dense lines,
//   gigabytes a second): its output is not slowed; diagnosis runs on a thread
//   of its own behind a bounded queue and passes over what it cannot keep up
//   with, and the report says so (diagnosis_queue.h).
// The command's process is child_process.cpp's job, its output's way through
// output_relay.cpp's, the diagnosis thread diagnosis_queue.cpp's; this file
// holds the steps around them.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "child_process.h"
#include "commands.h"
#include "diagnosis_queue.h"
#include "faultline.h"
#include "messages.h"
#include "output_relay.h"
#include "pack_choice.h"
#include "pack_watch.h"

namespace cli {

namespace {

// Output waiting for diagnosis, at most: a few hundred milliseconds of the
// slowest (key-dense) diagnosis, a fraction of a second of the fastest writer.
constexpr size_t kDiagnosisQueueBytes = 32u << 20;

struct RunOptions {
  std::string report_path;   // --report: where the JSON report goes; empty: nowhere
  std::string summary_path;  // --summary-file: where the one-line summary goes (at most 1 KiB)
  std::string pack_path;     // --pack (else FAULTLINE_PACK, else the embedded pack)
  bool quiet = false;        // --quiet: no diagnosis and no warning on stderr
  double grace = 5.0;        // --grace: seconds of reading after the command exited
  char **command = nullptr;  // the rest of our argv, NULL-terminated
};

int usage(int status) {
  std::fprintf(status ? stderr : stdout,
               "usage: faultline run [--report FILE] [--summary-file FILE] [--pack PACK] [--quiet] [--grace SECONDS]\n"
               "                     [--] COMMAND [ARGS...]\n"
               "Runs COMMAND, passing its output through unchanged; if it fails, prints the diagnosis on stderr\n"
               "(and writes the JSON report to --report FILE, the one-line summary, at most 1 KiB, to\n"
               "--summary-file FILE). Exits with COMMAND's status (128+N if killed by signal N).\n"
               "The pack: --pack, else FAULTLINE_PACK, else the embedded one.\n"
               "A pack file that changes during the run (replaced by mv, or rewritten) is reloaded between two\n"
               "chunks of output, if it opens: what was found so far is kept, later output is read with the new pack.\n"
               "SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to faultline are forwarded to COMMAND (not those from\n"
               "the terminal, e.g. Ctrl-C: COMMAND already got them).\n"
               "When COMMAND exits but a process it left behind still holds its stdout or stderr, the output is\n"
               "passed through for SECONDS more (default 5), then faultline reports and exits; that process\n"
               "then gets EPIPE if it writes. If faultline's own stdout or stderr is closed (| head), COMMAND\n"
               "gets EPIPE on that stream as it would without faultline, and the diagnosis goes on.\n"
               "Output never waits for the diagnosis: if COMMAND writes faster than it can be diagnosed, the\n"
               "diagnosis passes over some of it (the end of the output is always read) and says so.\n"
               "Examples:\n"
               "  faultline run -- torchrun --nproc-per-node 8 train.py\n"
               "  faultline run --summary-file /dev/termination-log -- python train.py   # Kubernetes (4 KiB)\n");
  return status;
}

// False when there is nothing to run (help, usage error): `*status` is then
// faultline's exit status.
bool parse_run_options(int argc, char **argv, RunOptions *o, int *status) {
  int i = 1;
  for (; i < argc; i++) {
    if (!std::strcmp(argv[i], "--")) {
      i++;
      break;
    }
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) return *status = usage(0), false;
    if (!std::strcmp(argv[i], "--report") && i + 1 < argc)
      o->report_path = argv[++i];
    else if (!std::strcmp(argv[i], "--summary-file") && i + 1 < argc)
      o->summary_path = argv[++i];
    else if (!std::strcmp(argv[i], "--pack") && i + 1 < argc)
      add_pack_option(&o->pack_path, argv[++i]);
    else if (!std::strcmp(argv[i], "--quiet"))
      o->quiet = true;
    else if (!std::strcmp(argv[i], "--grace") && i + 1 < argc) {
      char *end = nullptr;
      o->grace = std::strtod(argv[++i], &end);
      if (end == argv[i] || *end || !(o->grace >= 0 && o->grace <= 86400)) return *status = usage(kExitError), false;
    } else if (!std::strcmp(argv[i], "--report") || !std::strcmp(argv[i], "--summary-file") || !std::strcmp(argv[i], "--pack") ||
               !std::strcmp(argv[i], "--grace")) {
      eprintf("faultline run: option %s needs a value\n", argv[i]);
      return *status = kExitError, false;
    } else if (argv[i][0] == '-') {
      eprintf("faultline run: unknown option %s\n", argv[i]);
      return *status = usage(kExitError), false;
    } else
      break;
  }
  if (i >= argc) return *status = usage(kExitError), false;
  o->command = argv + i;
  return true;
}

// One diagnoser per stream: chunks of stdout and stderr arrive interleaved,
// each stream's lines must stay whole. They are merged at the end.
struct StreamDiagnosers {
  fl_pack *pack = nullptr;
  fl_diagnoser *out = nullptr;  // the command's stdout; stderr's evidence is merged into it
  fl_diagnoser *err = nullptr;  // the command's stderr
  // Hot reload (on the diagnosis thread): the pack files are looked at once a
  // second; a changed one is read, and if the stack opens, the diagnosis goes
  // on with it (evidence so far carried over by entry id, as partials are).
  std::string pack_option;
  PackWatch watch{""};
  std::chrono::steady_clock::time_point next_look{};
  int reloads = 0;
  std::string reload_error;  // why the last changed pack was not taken
};

bool open_stream_diagnosers(StreamDiagnosers *d, const std::string &pack_path) {
  d->pack_option = pack_path;
  d->watch = PackWatch(pack_path);
  if (!(d->pack = open_chosen_pack("run", pack_path))) return false;
  if (fl_diagnoser_create(d->pack, nullptr, &d->out) != FL_OK || fl_diagnoser_create(d->pack, nullptr, &d->err) != FL_OK) {
    eprintf("faultline run: out of memory\n");
    return false;
  }
  fl_diagnoser_begin_source(d->out, "stdout");
  fl_diagnoser_begin_source(d->err, "stderr");
  return true;
}

void free_stream_diagnosers(StreamDiagnosers &d) {
  fl_diagnoser_free(d.out);
  fl_diagnoser_free(d.err);
  fl_pack_free(d.pack);
}

// A diagnoser on `pack` holding what `old` gathered (by entry id), reading
// `stream` on from here. NULL when out of memory (`old` is kept then).
fl_diagnoser *carry_over(fl_diagnoser *old, fl_pack *pack, const char *stream, int reload) {
  const void *part = nullptr;
  size_t len = 0;
  fl_diagnoser *d = nullptr;
  if (fl_diagnoser_partial(old, &part, &len) != FL_OK || fl_diagnoser_create(pack, nullptr, &d) != FL_OK) return nullptr;
  if (fl_diagnoser_merge_partial(d, part, len) != FL_OK) {
    fl_diagnoser_free(d);
    return nullptr;
  }
  char name[64];
  std::snprintf(name, sizeof name, "%s after pack reload %d", stream, reload);
  fl_diagnoser_begin_source(d, name);
  return d;
}

// Between two chunks: takes a changed pack if it opens whole.
void reload_if_changed(StreamDiagnosers &d) {
  if (!d.watch.has_files()) return;
  const auto now = std::chrono::steady_clock::now();
  if (now < d.next_look) return;
  d.next_look = now + std::chrono::seconds(1);
  if (!d.watch.changed()) return;  // a pack that fails is tried again only once it changes again
  std::string why;
  fl_pack *pack = open_chosen_pack("run", d.pack_option, &why);
  if (!pack) {
    while (!why.empty() && why.back() == '\n') why.pop_back();
    d.reload_error = why;
    return;
  }
  fl_diagnoser *out = carry_over(d.out, pack, "stdout", d.reloads + 1);
  fl_diagnoser *err = out ? carry_over(d.err, pack, "stderr", d.reloads + 1) : nullptr;
  if (!out || !err) {
    fl_diagnoser_free(out);
    fl_pack_free(pack);
    d.reload_error = "out of memory";
    return;
  }
  fl_diagnoser_free(d.out);
  fl_diagnoser_free(d.err);
  fl_pack_free(d.pack);
  d.out = out, d.err = err, d.pack = pack;
  d.reloads++;
  d.reload_error.clear();
}

void merge_stderr_into_stdout(StreamDiagnosers &d) {
  const void *part = nullptr;
  size_t part_len = 0;
  if (fl_diagnoser_partial(d.err, &part, &part_len) == FL_OK) fl_diagnoser_merge_partial(d.out, part, part_len);
}

// Feeds (or passes over) the queue's chunks on its worker thread.
DiagnosisQueue::Consume diagnose_into(StreamDiagnosers &d) {
  return [&d](int stream, const char *bytes, size_t len, DiagnosisQueue::Use use) {
    reload_if_changed(d);
    fl_diagnoser *to = stream == 0 ? d.out : d.err;
    if (use == DiagnosisQueue::Use::kDiagnose)
      fl_diagnoser_feed(to, bytes, len);
    else
      fl_diagnoser_skip(to, bytes, len);
  };
}

// The report says how much of the output went undiagnosed, if any did.
void note_what_went_undiagnosed(fl_diagnoser *d, const DiagnosisQueue::Stats &s) {
  if (!s.skipped && !s.dropped) return;
  char why[256];
  int n = std::snprintf(why, sizeof why,
                        "the command wrote faster than it could be diagnosed: %.1f MB of its %.1f MB of output "
                        "passed through without being matched",
                        static_cast<double>(s.skipped + s.dropped) / 1e6, static_cast<double>(s.pushed) / 1e6);
  if (s.dropped && n > 0 && static_cast<size_t>(n) < sizeof why)
    std::snprintf(why + n, sizeof why - static_cast<size_t>(n), " (%.1f MB unread: line numbers after it approximate)",
                  static_cast<double>(s.dropped) / 1e6);
  fl_diagnoser_set_incomplete(d, why);
}

void warn_output_still_held(double grace) {
  eprintf(
      "faultline run: the command exited but another process still holds its output; "
      "stopped reading after %g s (--grace)\n",
      grace);
}

// On stderr, after everything the command wrote there.
void print_diagnosis(const StreamDiagnosers &d, int status) {
  const char *text = nullptr;
  const int format = use_color(ColorMode::kAuto, 2) ? FL_REPORT_TEXT_COLOR : FL_REPORT_TEXT;
  if (fl_diagnoser_report(d.out, format, &text, nullptr) != FL_OK) return;
  // The report escapes what came from the log; its colors are its own.
  std::fprintf(stderr, "\n==== faultline: the command exited with status %d ====\n", status);
  if (d.reloads)
    std::fprintf(stderr, "(the pack changed on disk during the run and was reloaded %d time%s: %s %s)\n", d.reloads,
                 d.reloads == 1 ? "" : "s", printable(fl_pack_library_name(d.pack)).c_str(),
                 printable(fl_pack_version(d.pack)).c_str());
  if (!d.reload_error.empty())
    std::fprintf(stderr, "(a changed pack was not loaded, the previous one was kept: %s)\n", printable(d.reload_error).c_str());
  std::fputs(text, stderr);
}

// The report in `format` to `path` (the summary with its newline).
void write_report(fl_diagnoser *d, int format, const std::string &path) {
  const char *text = nullptr;
  size_t len = 0;
  FILE *f = nullptr;
  bool ok = fl_diagnoser_report(d, format, &text, &len) == FL_OK && (f = std::fopen(path.c_str(), "w"));
  if (f) {
    ok = std::fwrite(text, 1, len, f) == len;
    if (format == FL_REPORT_SUMMARY) ok = std::fputc('\n', f) != EOF && ok;
    ok = std::fclose(f) == 0 && ok;  // a full disk shows here too
  }
  if (!ok) eprintf("faultline run: cannot write %s\n", path.c_str());
}

}  // namespace

int cmd_run(int argc, char **argv) {
  RunOptions o;
  int status = kExitError;
  if (!parse_run_options(argc, argv, &o, &status)) return status;
  StreamDiagnosers d;
  if (!open_stream_diagnosers(&d, o.pack_path)) return kExitError;
  Child child;
  if (!start_child(o.command, &child)) return kExitError;
  // After the fork: the child is forked from a process with one thread.
  DiagnosisQueue queue(kDiagnosisQueueBytes, diagnose_into(d));
  const bool output_still_held = relay_output(child, queue, o.grace);
  if (output_still_held && !o.quiet) warn_output_still_held(o.grace);
  wait_for_exit(child);
  status = exit_status(child);
  queue.finish();
  note_what_went_undiagnosed(d.out, queue.stats());
  merge_stderr_into_stdout(d);
  if (status != 0 && !o.quiet) print_diagnosis(d, status);
  if (!o.report_path.empty()) write_report(d.out, FL_REPORT_JSON, o.report_path);
  if (!o.summary_path.empty()) write_report(d.out, FL_REPORT_SUMMARY, o.summary_path);
  free_stream_diagnosers(d);
  return status;
}

}  // namespace cli
