// Run by ci.sh after `npm run package`: the files vsce puts in the .vsix are
// the compiled extension, its style sheet, the manifest, README, LICENSE and
// CHANGELOG, and the runtime dependencies (no sources, tests, maps or dev
// tools); and the extension's modules load from those files alone. VS Code
// itself is not here: `vscode` resolves to a stand-in that only lets the
// modules load, so this checks the package, not the extension's behaviour.

import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as Module from "node:module";
import * as os from "node:os";
import * as path from "node:path";

const root = path.resolve(__dirname, "../..");
const listed = execFileSync(path.join(root, "node_modules/.bin/vsce"), ["ls"], { cwd: root, encoding: "utf8" })
  .split("\n")
  .map((l) => l.trim())
  .filter((l) => l !== "");

const problems: string[] = [];
const forbidden = /^(src|test|out\/test)\/|\.map$|\.ts$|^node_modules\/(typescript|eslint|@eslint|@types|@vscode\/vsce|typescript-eslint)\//;
for (const file of listed) if (forbidden.test(file)) problems.push(`does not belong in the package: ${file}`);
const required = ["package.json", "README.md", "LICENSE", "CHANGELOG.md", "media/report.css", "out/src/extension.js"];
for (const file of required) if (!listed.includes(file)) problems.push(`missing from the package: ${file}`);

// The package's files alone, in a fresh folder.
const unpacked = fs.mkdtempSync(path.join(os.tmpdir(), "faultline-vsix-"));
for (const file of listed) {
  fs.mkdirSync(path.join(unpacked, path.dirname(file)), { recursive: true });
  fs.copyFileSync(path.join(root, file), path.join(unpacked, file));
}
const standIn = path.join(unpacked, "vscode-stand-in.js");
fs.writeFileSync(
  standIn,
  "const any = new Proxy(function () {}, { get: (t, k) => (k === 'prototype' ? {} : any), apply: () => any, construct: () => any });\nmodule.exports = any;\n",
);
const loader = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
const resolve = loader._resolveFilename.bind(Module);
loader._resolveFilename = (request: string, ...rest: unknown[]) => (request === "vscode" ? standIn : resolve(request, ...rest));
// The CommonJS loader that the extension's own modules use.
const load = Module.createRequire(__filename);
try {
  const extension = load(path.join(unpacked, "out/src/extension.js")) as Record<string, unknown>;
  if (typeof extension.activate !== "function" || typeof extension.deactivate !== "function") {
    problems.push("out/src/extension.js exports no activate/deactivate");
  }
  // The language client is what the package's node_modules must provide.
  load(path.join(unpacked, "node_modules/vscode-languageclient/node"));
} catch (e) {
  problems.push(`the packaged extension does not load: ${e instanceof Error ? e.message : String(e)}`);
}
fs.rmSync(unpacked, { recursive: true, force: true });

if (problems.length > 0) {
  for (const p of problems) console.error(`package check: ${p}`);
  process.exit(1);
}
console.log(`package check: ${listed.length} files, the extension loads from them alone`);
