// The poll loop of `faultline run`: the command's output passed through and
// queued for diagnosis as it comes, until its pipes close or its exit's grace period ends.
#include "output_relay.h"

#include <poll.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>

namespace cli {

namespace {

char g_chunk[1 << 20];  // one run per process, and too big for the stack

// 0 or the errno of the failed write.
int write_all(int fd, const char *p, size_t n) {
  while (n) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && errno == EAGAIN) {  // our stdout may be a non-blocking file description shared with others
      struct pollfd pf = {fd, POLLOUT, 0};
      poll(&pf, 1, -1);
      continue;
    }
    if (w < 0) return errno;
    if (w == 0) return EIO;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return 0;
}

double now_seconds() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Stream k is the command's stdout (k = 0) or stderr (k = 1), passed on to
// our fd k + 1. A closed pipe's fd is -1, which poll skips.
struct Relay {
  struct pollfd fds[3];  // stdout pipe, stderr pipe, the command's exit event
  DiagnosisQueue *queue;
  bool forwarding[2] = {true, true};  // false once copying to our stream failed (not EPIPE)
  int open_pipes = 2;
};

void close_pipe(Relay &r, int k) {
  close(r.fds[k].fd);
  r.fds[k].fd = -1;
  r.open_pipes--;
}

// Passes n bytes of stream k, in g_chunk, through and into the queue.
void pass(Relay &r, int k, size_t n) {
  int e = r.forwarding[k] ? write_all(k + 1, g_chunk, n) : 0;  // pass through first: live output
  r.queue->push(k, g_chunk, n);
  if (e == EPIPE) {
    // Nobody reads our stream k any more: close the pipe so that the
    // command's next write fails with EPIPE/SIGPIPE, as if it wrote there.
    close_pipe(r, k);
  } else if (e) {
    r.forwarding[k] = false;  // e.g. ENOSPC: keep the command running and diagnosed, drop the copy
  }
}

// One read from each pipe that poll found ready; EOF or an error closes it.
void read_ready_pipes(Relay &r) {
  for (int k = 0; k < 2; k++) {
    if (r.fds[k].fd < 0 || !(r.fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    ssize_t n = ::read(r.fds[k].fd, g_chunk, sizeof g_chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      close_pipe(r, k);
      continue;
    }
    pass(r, k, static_cast<size_t>(n));
  }
}

// The command's exit, not the pipes' EOF, starts the end: a process it left
// behind (a stray `sleep 1000 &`) may hold the pipes open for ever.
void relay_until_eof_or_grace_over(Relay &r, Child &child, double grace) {
  double deadline = 0;
  while (r.open_pipes) {
    int timeout = -1;
    if (child.exited) {
      double left = deadline - now_seconds();
      if (left <= 0) break;
      timeout = static_cast<int>(left * 1000) + 1;
    }
    int n = poll(r.fds, 3, timeout);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    if ((r.fds[2].revents & POLLIN) && reap_if_exited(child)) {
      deadline = now_seconds() + grace;
      r.fds[2].fd = -1;
    }
    read_ready_pipes(r);
  }
}

// The grace time is over and someone still holds a pipe: take what the
// pipe already holds (bounded, whatever keeps writing) and stop there.
void take_what_pipes_hold(Relay &r) {
  for (int k = 0; k < 2; k++) {
    int avail = 0;
    if (r.fds[k].fd < 0 || ioctl(r.fds[k].fd, FIONREAD, &avail) != 0) continue;
    while (avail > 0 && r.fds[k].fd >= 0) {
      ssize_t n = ::read(r.fds[k].fd, g_chunk, std::min(sizeof g_chunk, static_cast<size_t>(avail)));
      if (n <= 0) break;
      avail -= static_cast<int>(n);
      pass(r, k, static_cast<size_t>(n));
    }
    if (r.fds[k].fd >= 0) close_pipe(r, k);
  }
}

}  // namespace

bool relay_output(Child &child, DiagnosisQueue &queue, double grace) {
  Relay r{{{child.stdout_pipe, POLLIN, 0}, {child.stderr_pipe, POLLIN, 0}, {child.exit_event, POLLIN, 0}}, &queue};
  relay_until_eof_or_grace_over(r, child, grace);
  if (!r.open_pipes) return false;
  take_what_pipes_hold(r);
  return true;
}

}  // namespace cli
