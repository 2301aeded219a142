// Starting, signalling and reaping the command of `faultline run`.
#include "child_process.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <initializer_list>

#include "messages.h"

namespace cli {

namespace {

volatile sig_atomic_t g_child = 0;
volatile sig_atomic_t g_wake_fd = -1;  // write end of the self-pipe that turns SIGCHLD into a poll event

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD};
constexpr int kSignalCount = sizeof kSignals / sizeof kSignals[0];

// A signal the terminal sent (Ctrl-C, Ctrl-Backslash, hangup: si_code SI_KERNEL) went
// to the whole foreground process group, the command included: sending it
// again would make a second Ctrl-C of it (torchrun and Python take that as
// "stop now"). Signals sent to us alone (kill, a scheduler) are forwarded.
void forward(int sig, siginfo_t *info, void *) {
  if (info && info->si_code == SI_KERNEL) return;
  if (g_child > 0) kill(g_child, sig);
}

void on_sigchld(int) {
  int saved = errno;
  if (g_wake_fd >= 0) (void)!::write(g_wake_fd, "c", 1);  // non-blocking: a full pipe already wakes poll
  errno = saved;
}

void install_handlers(struct sigaction (&saved)[kSignalCount]) {
  for (int k = 0; k < kSignalCount; k++) {
    struct sigaction sa {};
    if (kSignals[k] == SIGCHLD)
      sa.sa_handler = on_sigchld;
    else
      sa.sa_sigaction = forward;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART | (kSignals[k] == SIGCHLD ? SA_NOCLDSTOP : SA_SIGINFO);
    sigaction(kSignals[k], &sa, &saved[k]);
  }
}

// In the forked child: never returns.
[[noreturn]] void exec_command(char **command, const int out_pipe[2], const int err_pipe[2],
                               const struct sigaction (&saved)[kSignalCount], const sigset_t &saved_mask, pid_t parent) {
  // If faultline is killed outright (SIGKILL, the OOM killer), the command
  // gets SIGKILL too instead of running on unsupervised with nobody reading
  // its output; checked after setting it, in case faultline died before.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(137);
  // The command starts with the dispositions and mask we were started with
  // (SIGINT stays ignored under `nohup` or `&` in a script).
  for (int k = 0; k < kSignalCount; k++) sigaction(kSignals[k], &saved[k], nullptr);
  sigprocmask(SIG_SETMASK, &saved_mask, nullptr);
  dup2(out_pipe[1], 1);
  dup2(err_pipe[1], 2);
  execvp(command[0], command);
  eprintf("faultline run: cannot run %s: %s\n", command[0], std::strerror(errno));
  _exit(127);
}

}  // namespace

bool start_child(char **command, Child *out) {
  // CLOEXEC: the command must inherit only the write ends it gets as fd 1 and
  // 2 (a stray copy would keep a pipe open after the command closed it).
  int po[2], pe[2], wake[2];
  if (pipe2(po, O_CLOEXEC) != 0 || pipe2(pe, O_CLOEXEC) != 0 || pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0) {
    std::perror("faultline run: pipe");
    return false;
  }
  // Handlers go in before fork with the signals blocked until the child's pid
  // is known: a SIGTERM in between is then forwarded, not fatal to us alone,
  // and an exit right after exec still wakes poll.
  struct sigaction saved[kSignalCount];
  sigset_t block, saved_mask;
  sigemptyset(&block);
  for (int sig : kSignals) sigaddset(&block, sig);
  sigprocmask(SIG_BLOCK, &block, &saved_mask);
  g_wake_fd = wake[1];
  install_handlers(saved);
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    std::perror("faultline run: fork");
    return false;
  }
  if (pid == 0) exec_command(command, po, pe, saved, saved_mask, parent);
  g_child = pid;
  sigprocmask(SIG_SETMASK, &saved_mask, nullptr);
  // A closed stdout/stderr of ours is handled per stream (EPIPE) by whoever
  // passes the output on, not by dying: the command would be left running
  // with nobody reading its pipes. Set after fork: the command inherits the
  // disposition we were started with.
  signal(SIGPIPE, SIG_IGN);
  close(po[1]), close(pe[1]);
  // 1 MiB pipes (best effort, the default pipe-max-size): a burst then costs
  // a sixteenth of the reads and wakeups of the 64 KiB default.
  for (int fd : {po[0], pe[0]}) fcntl(fd, F_SETPIPE_SZ, 1 << 20);
  out->pid = pid;
  out->stdout_pipe = po[0];
  out->stderr_pipe = pe[0];
  out->exit_event = wake[0];
  return true;
}

bool reap_if_exited(Child &c) {
  char drained[64];
  while (::read(c.exit_event, drained, sizeof drained) > 0) {
  }
  if (c.exited || waitpid(c.pid, &c.wait_status, WNOHANG) != c.pid) return false;
  c.exited = true;
  g_child = 0;  // reaped: its pid may be reused, forward() must not kill it any more
  return true;
}

void wait_for_exit(Child &c) {
  while (!c.exited && waitpid(c.pid, &c.wait_status, 0) < 0 && errno == EINTR) {
  }
  c.exited = true;
  g_child = 0;
}

int exit_status(const Child &c) {
  const int ws = c.wait_status;
  return WIFEXITED(ws) ? WEXITSTATUS(ws) : WIFSIGNALED(ws) ? 128 + WTERMSIG(ws) : 1;
}

}  // namespace cli
