// Runs the faultline executable: spawn() with an argument array and no shell,
// text on stdin, output collected up to a bound, cancellable. Pure Node (no
// vscode import), so the tests run it against the real binary.

import { spawn } from "node:child_process";

export interface RunOptions {
  /** Written to the process's standard input, which is then closed; without it stdin is empty. */
  stdin?: string;
  /** Aborting kills the process. */
  signal?: AbortSignal;
  /** More standard output than this is an error (reports are kilobytes; a bound keeps memory bounded). */
  maxStdoutBytes?: number;
  /** Only this much of standard error is kept, for the error message. */
  maxStderrBytes?: number;
}

export interface RunResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export class RunError extends Error {}

const DEFAULT_MAX_STDOUT = 64 * 1024 * 1024;
const DEFAULT_MAX_STDERR = 64 * 1024;

/** Runs `executable args...` and resolves when it has exited and its output is read. */
export function runFaultline(executable: string, args: readonly string[], opts: RunOptions = {}): Promise<RunResult> {
  const maxStdout = opts.maxStdoutBytes ?? DEFAULT_MAX_STDOUT;
  const maxStderr = opts.maxStderrBytes ?? DEFAULT_MAX_STDERR;
  return new Promise((resolve, reject) => {
    const child = spawn(executable, args, {
      shell: false,
      stdio: ["pipe", "pipe", "pipe"],
      windowsHide: true,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let stdoutBytes = 0;
    let stderrBytes = 0;
    let failure: Error | null = null;

    child.stdout.on("data", (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (stdoutBytes > maxStdout) {
        failure ??= new RunError(`${executable} printed more than ${maxStdout} bytes`);
        child.kill();
        return;
      }
      stdout.push(chunk);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderrBytes < maxStderr) stderr.push(chunk.subarray(0, maxStderr - stderrBytes));
      stderrBytes += chunk.length;
    });
    // The process may exit before reading all of its input (an error, or a
    // kill): the broken pipe is not the failure to report.
    child.stdin.on("error", () => undefined);
    child.on("error", (err: NodeJS.ErrnoException) => {
      if (err.name === "AbortError") failure ??= new RunError("cancelled");
      else if (err.code === "ENOENT") failure ??= new RunError(`${executable} not found (set faultline.path)`);
      else failure ??= new RunError(`${executable} could not run: ${err.message}`);
    });
    child.on("close", (exitCode, signal) => {
      if (failure) {
        reject(failure);
        return;
      }
      resolve({
        exitCode,
        signal,
        stdout: Buffer.concat(stdout).toString("utf8"),
        stderr: Buffer.concat(stderr).toString("utf8"),
      });
    });
    child.stdin.end(opts.stdin ?? "");
  });
}
