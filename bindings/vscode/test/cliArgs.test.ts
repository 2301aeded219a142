// The CLI's arguments are arrays for spawn() without a shell: what a setting
// or a file name holds stays one argument, whatever characters it has.

import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import { test } from "node:test";
import { diagnoseFilesArgs, diagnoseStdinArgs, explainArgs, lspArgs } from "../src/cliArgs";
import { runFaultline } from "../src/cliRunner";

const NASTY = ["-rf", "a b", "$(touch pwned)", "`id`", "x; rm -rf /", "--help", "'\"", "*"];

test("packs are one value each, after --pack", () => {
  const args = diagnoseStdinArgs(NASTY);
  assert.deepEqual(args.slice(0, 2), ["diagnose", "--json"]);
  assert.equal(args.at(-1), "-");
  NASTY.forEach((pack, i) => {
    assert.equal(args[2 + 2 * i], "--pack");
    assert.equal(args[3 + 2 * i], pack);
  });
  assert.deepEqual(lspArgs(["site.flpack", ""]), ["lsp", "--pack", "site.flpack"]);
});

test("files come after --, so a name starting with - is a name", () => {
  assert.deepEqual(diagnoseFilesArgs([], ["-x.log", "a b.log"]), ["diagnose", "--json", "--", "-x.log", "a b.log"]);
  assert.throws(() => diagnoseFilesArgs([], []));
});

test("explain takes only an entry id", () => {
  assert.deepEqual(explainArgs([], "cuda-out-of-memory"), ["explain", "--markdown", "cuda-out-of-memory"]);
  for (const bad of ["--help", "a b", "../x", "unknown", "", "x;y"]) assert.throws(() => explainArgs([], bad), bad);
});

test("arguments reach the process verbatim, no shell runs", async () => {
  assert.ok(!fs.existsSync("pwned"));
  const script = "process.stdout.write(JSON.stringify(process.argv.slice(1)))";
  const args = diagnoseFilesArgs(NASTY, NASTY);
  const result = await runFaultline(process.execPath, ["-e", script, "--", ...args], {});
  assert.equal(result.exitCode, 0);
  assert.deepEqual(JSON.parse(result.stdout), args);
  assert.ok(!fs.existsSync("pwned"), "no command substitution ran");
});
