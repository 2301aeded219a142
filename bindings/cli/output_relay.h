// The command's stdout and stderr on their way to ours, unchanged and live,
// each also handed to the diagnosis queue (stream 0: stdout, 1: stderr).
#pragma once

#include "child_process.h"
#include "diagnosis_queue.h"

namespace cli {

// Passes the command's output through and into `queue` until both pipes
// reach EOF, or until `grace` seconds
// after the command exited; reaps the command if it exits meanwhile. When
// the grace period ends with a pipe still held by a process the command
// left behind, takes what that pipe already holds, closes it and returns
// true.
bool relay_output(Child &child, DiagnosisQueue &queue, double grace);

}  // namespace cli
