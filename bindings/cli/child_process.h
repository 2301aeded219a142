// The command `faultline run` wraps: started with its stdout and stderr as
// pipes to us, sent the signals we get, and reaped when poll says it exited.
#pragma once

#include <sys/types.h>

namespace cli {

struct Child {
  pid_t pid = -1;
  int stdout_pipe = -1;  // read end of the command's fd 1
  int stderr_pipe = -1;  // read end of the command's fd 2
  int exit_event = -1;   // readable after SIGCHLD (self-pipe): poll it with the output pipes
  bool exited = false;   // reaped; wait_status is then the command's
  int wait_status = 0;
};

// Starts `command` (argv style, NULL-terminated) with SIGINT, SIGTERM, SIGHUP
// and SIGQUIT forwarded to it from now on. Returns false, with the reason
// on stderr, when pipes or fork fail; a command that cannot be executed
// exits 127 instead.
bool start_child(char **command, Child *out);

// Call when exit_event is readable. Never blocks. Returns true if this call
// reaped the command (exited and wait_status set).
bool reap_if_exited(Child &c);

// Blocks until the command is reaped, unless it already is.
void wait_for_exit(Child &c);

// The shell's convention: the exit code, or 128+N when killed by signal N.
int exit_status(const Child &c);

}  // namespace cli
