// The language server as the extension's client meets it: `faultline lsp`
// spoken to over JSON-RPC (the protocol library the language client uses),
// on the golden two-node job's rank-5 log. Checks what the extension relies
// on: the faultline/report request and its params, the commands of the code
// actions, and the server's command list after KeepCommandsLocal. Skipped
// without FAULTLINE_BIN, or when that faultline has no `lsp` command.

import * as assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "node:test";
import { StreamMessageReader, StreamMessageWriter, createMessageConnection } from "vscode-jsonrpc/node";
import type { ServerCapabilities } from "vscode-languageclient/node";
import { lspArgs } from "../src/cliArgs";
import { KeepCommandsLocal } from "../src/localCommands";
import { asReport } from "../src/report";
import { factsOfDiagnostics, factsOfReport, statusVerdict } from "../src/verdict";
import { REPO_ROOT } from "./fixtures";

const bin = process.env.FAULTLINE_BIN;
function lspSkip(): string | false {
  if (!bin) return "FAULTLINE_BIN is not set";
  const help = spawnSync(bin, ["help", "lsp"], { encoding: "utf8" });
  return help.status === 0 ? false : `${bin} has no lsp command`;
}
const skip = lspSkip();
const LOG = path.join(REPO_ROOT, "tests/golden/multirank/oom-rank5/node-b.log");

interface Diagnostic {
  severity: number;
  source?: string;
  code?: string | number;
  range: { start: { line: number } };
}
interface CodeAction {
  title: string;
  command?: { command: string; arguments?: unknown[] };
}

test("faultline lsp answers the extension's requests", { skip, timeout: 60000 }, async () => {
  const server = spawn(bin ?? "", lspArgs([]), { stdio: ["pipe", "pipe", "inherit"], shell: false });
  const connection = createMessageConnection(new StreamMessageReader(server.stdout), new StreamMessageWriter(server.stdin));
  const published = new Promise<Diagnostic[]>((resolve) => {
    connection.onNotification("textDocument/publishDiagnostics", (p: { diagnostics: Diagnostic[] }) => {
      if (p.diagnostics.length > 0) resolve(p.diagnostics);
    });
  });
  connection.listen();
  try {
    const init: { capabilities: ServerCapabilities } = await connection.sendRequest("initialize", {
      processId: process.pid,
      rootUri: null,
      capabilities: {},
    });
    await connection.sendNotification("initialized", {});

    // The server offers faultline.showEntry; the extension keeps it (and copyText) to itself.
    const capabilities = structuredClone(init.capabilities);
    new KeepCommandsLocal(["faultline.showEntry", "faultline.copyText"]).preInitialize(capabilities);
    const offered = init.capabilities.executeCommandProvider?.commands ?? [];
    const left = capabilities.executeCommandProvider?.commands ?? [];
    assert.ok(!left.includes("faultline.showEntry") && !left.includes("faultline.copyText"));
    assert.deepEqual(left, offered.filter((c) => c !== "faultline.showEntry" && c !== "faultline.copyText"));

    const uri = pathToFileURL(LOG).toString();
    const text = fs.readFileSync(LOG, "utf8");
    await connection.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId: "log", version: 1, text } });

    // faultline/report with the params the extension sends: the CLI's report of the same text.
    const report = asReport(await connection.sendRequest("faultline/report", { textDocument: { uri } }));
    const cli = asReport(JSON.parse(execFileSync(bin ?? "", ["diagnose", "--json", LOG], { encoding: "utf8" })));
    assert.equal(report.root?.id, cli.root?.id);
    assert.equal(report.root?.rank, cli.root?.rank);
    assert.equal(report.root?.line, cli.root?.line);
    assert.equal(statusVerdict(factsOfReport(report)).text, `$(error) faultline: ${cli.root?.id ?? ""} rank ${String(cli.root?.rank)}`);

    // The diagnostics alone give the same root (the status bar's fallback).
    const diagnostics = await published;
    const facts = factsOfDiagnostics(diagnostics.map((d) => ({ source: d.source, severity: d.severity - 1, code: d.code })));
    assert.equal(facts.rootId, cli.root?.id);
    const rootDiagnostic = diagnostics.find((d) => d.severity === 1);
    assert.ok(rootDiagnostic, "an error diagnostic");
    assert.equal(rootDiagnostic.range.start.line, (cli.root?.line ?? 0) - 1);

    // Code actions on the root line use the two commands the extension registers, with a string argument.
    const line = (cli.root?.line ?? 1) - 1;
    const actions: CodeAction[] = await connection.sendRequest("textDocument/codeAction", {
      textDocument: { uri },
      range: { start: { line, character: 0 }, end: { line, character: 0 } },
      context: { diagnostics: [rootDiagnostic] },
    });
    const commands = actions.map((a) => a.command).filter((c) => c !== undefined);
    assert.ok(commands.length > 0);
    for (const c of commands) {
      assert.ok(c.command === "faultline.copyText" || c.command === "faultline.showEntry", c.command);
      const args = c.arguments ?? [];
      assert.equal(args.length, 1);
      assert.equal(typeof args[0], "string");
    }
    const copied = commands.filter((c) => c.command === "faultline.copyText").map((c) => c.arguments?.[0]);
    for (const fix of cli.fix.commands) assert.ok(copied.includes(fix.run), fix.run);
    assert.ok(commands.some((c) => c.command === "faultline.showEntry" && c.arguments?.[0] === cli.root?.id));

    await connection.sendRequest("shutdown");
    await connection.sendNotification("exit");
  } finally {
    connection.dispose();
    server.kill();
  }
});
