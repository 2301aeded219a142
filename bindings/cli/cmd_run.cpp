// run: the launcher wrapper. Runs a command, passes its stdout and stderr
// through unchanged and live, diagnoses them on the way in bounded memory,
// and when the command fails prints the diagnosis (and writes --report).
// Exits with the command's own status; SIGINT/SIGTERM/SIGHUP go to the child.
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <poll.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "faultline.h"

namespace cli {

namespace {

volatile sig_atomic_t g_child = 0;

void forward(int sig) {
  if (g_child > 0) kill(g_child, sig);
}

bool write_all(int fd, const char *p, size_t n) {
  while (n) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

int usage(int status) {
  std::fprintf(status ? stderr : stdout,
               "usage: faultline run [--report FILE] [--quiet] [--] COMMAND [ARGS...]\n"
               "Runs COMMAND, passing its output through unchanged; if it fails, prints the diagnosis on stderr\n"
               "(and writes the JSON report to FILE). Exits with COMMAND's status (128+N if killed by signal N).\n"
               "Examples:\n"
               "  faultline run -- torchrun --nproc-per-node 8 train.py\n"
               "  faultline run --report /dev/termination-log -- python train.py   # Kubernetes\n");
  return status;
}

}  // namespace

int cmd_run(int argc, char **argv) {
  std::string report_path;
  bool quiet = false;
  int i = 1;
  for (; i < argc; i++) {
    if (!std::strcmp(argv[i], "--")) {
      i++;
      break;
    }
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) return usage(0);
    if (!std::strcmp(argv[i], "--report") && i + 1 < argc) report_path = argv[++i];
    else if (!std::strcmp(argv[i], "--quiet")) quiet = true;
    else if (argv[i][0] == '-') return usage(kExitError);
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

  int po[2], pe[2];
  if (pipe(po) != 0 || pipe(pe) != 0) {
    std::perror("faultline run: pipe");
    return kExitError;
  }
  pid_t pid = fork();
  if (pid < 0) {
    std::perror("faultline run: fork");
    return kExitError;
  }
  if (pid == 0) {
    dup2(po[1], 1);
    dup2(pe[1], 2);
    close(po[0]), close(po[1]), close(pe[0]), close(pe[1]);
    execvp(argv[i], argv + i);
    std::fprintf(stderr, "faultline run: cannot run %s: %s\n", argv[i], std::strerror(errno));
    _exit(127);
  }
  g_child = pid;
  struct sigaction sa {};
  sa.sa_handler = forward;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaction(sig, &sa, nullptr);
  close(po[1]), close(pe[1]);

  struct pollfd fds[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
  fl_diagnoser *ds[2] = {out_d, err_d};
  char buf[1 << 16];
  int open_fds = 2;
  while (open_fds) {
    int n = poll(fds, 2, -1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    for (int k = 0; k < 2; k++) {
      if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t r = ::read(fds[k].fd, buf, sizeof buf);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) {
        close(fds[k].fd);
        fds[k].fd = -1;
        open_fds--;
        continue;
      }
      write_all(k == 0 ? 1 : 2, buf, static_cast<size_t>(r));  // pass through first: live output
      fl_diagnoser_feed(ds[k], buf, static_cast<size_t>(r));
    }
  }
  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  g_child = 0;
  int status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : WIFSIGNALED(wstatus) ? 128 + WTERMSIG(wstatus) : 1;

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
    if (fl_diagnoser_report(out_d, FL_REPORT_JSON, &json, &len) == FL_OK && (f = std::fopen(report_path.c_str(), "w"))) {
      std::fwrite(json, 1, len, f);
      std::fclose(f);
    } else {
      std::fprintf(stderr, "faultline run: cannot write %s\n", report_path.c_str());
    }
  }
  fl_diagnoser_free(out_d);
  fl_diagnoser_free(err_d);
  fl_pack_free(pack);
  return status;
}

}  // namespace cli
