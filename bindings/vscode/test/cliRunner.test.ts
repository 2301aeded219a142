// runFaultline against real processes (Node itself stands in for faultline).

import * as assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";
import { RunError, runFaultline } from "../src/cliRunner";

const node = process.execPath;

test("stdin arrives whole and the exit status is reported", async () => {
  const text = "line é ✓\n".repeat(200000);
  const script = `const h=require("crypto").createHash("sha256");process.stdin.on("data",d=>h.update(d));
    process.stdin.on("end",()=>{process.stdout.write(h.digest("hex"));process.exit(1)})`;
  const result = await runFaultline(node, ["-e", script], { stdin: text });
  assert.equal(result.exitCode, 1);
  assert.equal(result.stdout, createHash("sha256").update(text).digest("hex"));
});

test("a process that exits without reading its input is no crash", async () => {
  const result = await runFaultline(node, ["-e", "process.stderr.write('bad pack'); process.exit(2)"], { stdin: "x".repeat(8 << 20) });
  assert.equal(result.exitCode, 2);
  assert.equal(result.stderr, "bad pack");
});

test("output beyond the bound is an error, not memory", async () => {
  const script = "const b=Buffer.alloc(1<<16,120);function w(){while(process.stdout.write(b));process.stdout.once('drain',w)}w()";
  await assert.rejects(runFaultline(node, ["-e", script], { maxStdoutBytes: 1 << 20 }), /more than 1048576 bytes/);
});

test("stderr is kept only up to its bound", async () => {
  const result = await runFaultline(node, ["-e", "process.stderr.write('e'.repeat(100000))"], { maxStderrBytes: 1000 });
  assert.equal(result.stderr.length, 1000);
});

test("a missing executable names the setting", async () => {
  await assert.rejects(runFaultline("/nonexistent/faultline", ["diagnose"]), (e: unknown) => {
    assert.ok(e instanceof RunError);
    assert.match(e.message, /not found \(set faultline\.path\)/);
    return true;
  });
});

test("cancelling kills the process", async () => {
  const abort = new AbortController();
  const started = Date.now();
  const running = runFaultline(node, ["-e", "setTimeout(() => {}, 60000)"], { signal: abort.signal });
  setTimeout(() => {
    abort.abort();
  }, 200);
  await assert.rejects(running, /cancelled/);
  assert.ok(Date.now() - started < 30000);
});
