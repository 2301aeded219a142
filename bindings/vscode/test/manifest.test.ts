// package.json and the code agree: each contributed command is registered,
// each registered one contributed, each setting read is declared.

import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { REPO_ROOT } from "./fixtures";

const root = path.join(REPO_ROOT, "bindings/vscode");
const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as {
  contributes: { commands: { command: string }[]; configuration: { properties: Record<string, unknown> } };
  main: string;
};
const source = (name: string): string => fs.readFileSync(path.join(root, "src", name), "utf8");

test("contributed commands are the registered ones", () => {
  const contributed = manifest.contributes.commands.map((c) => c.command).sort();
  const registered = [...source("commands.ts").matchAll(/registerCommand\("([^"]+)"/g)].map((m) => m[1]).sort();
  assert.deepEqual(registered, contributed);
});

test("settings read by the code are declared", () => {
  const declared = Object.keys(manifest.contributes.configuration.properties);
  const read = [...source("settings.ts").matchAll(/config\.get<[^>]+>\("([^"]+)"/g)].map((m) => `faultline.${m[1] ?? ""}`);
  assert.ok(read.length >= 2);
  for (const key of read) assert.ok(declared.includes(key), key);
  assert.ok(declared.includes("faultline.trace.server"), "the language client reads faultline.trace.server");
});

test("main points at the compiled extension", () => {
  assert.equal(manifest.main, "./out/src/extension.js");
});
