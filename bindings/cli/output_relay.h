// The command's stdout and stderr on their way to ours, unchanged and live,
// each also fed to a diagnoser of its own.
#pragma once

#include "child_process.h"
#include "faultline.h"

namespace cli {

// Passes the command's output through and into `out_d` (its stdout) and
// `err_d` (its stderr) until both pipes reach EOF, or until `grace` seconds
// after the command exited; reaps the command if it exits meanwhile. When
// the grace period ends with a pipe still held by a process the command
// left behind, takes what that pipe already holds, closes it and returns
// true.
bool relay_output(Child &child, fl_diagnoser *out_d, fl_diagnoser *err_d, double grace);

}  // namespace cli
