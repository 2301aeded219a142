// The extension's commands: diagnose a selection, a terminal's output or
// files with the CLI; show a report or an entry page; copy a command.

import * as path from "node:path";
import * as vscode from "vscode";
import type { ServerConnection } from "./client";
import { diagnoseFiles, diagnoseText, explainEntry, type Faultline } from "./diagnose";
import { isLogDocument } from "./documents";
import { renderEntryHtml } from "./entryHtml";
import { ENTRY_ID, type Report } from "./report";
import { renderReportHtml } from "./reportHtml";
import { displayText } from "./text";
import { readFaultline } from "./settings";
import type { VerdictStatus } from "./statusBar";
import { copyTerminalBuffer, type TerminalRecorder } from "./terminalCapture";
import type { WebviewPage } from "./webviewPanel";

export interface CommandContext {
  server: ServerConnection;
  status: VerdictStatus;
  terminals: TerminalRecorder;
  reportPage: WebviewPage;
  entryPage: WebviewPage;
}

type Where = (source: string, line: number) => string;

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Runs a diagnosis with a cancellable progress notification. */
function withProgress<T>(title: string, work: (signal: AbortSignal) => Promise<T>): Thenable<T> {
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, (_p, token) => {
    const abort = new AbortController();
    token.onCancellationRequested(() => {
      abort.abort();
    });
    return work(abort.signal);
  });
}

function showReport(ctx: CommandContext, report: Report, origin: string, where?: Where): void {
  ctx.reportPage.show(`faultline: ${report.verdict}`, (page) =>
    renderReportHtml(report, { ...page, origin, ...(where ? { where } : {}) }),
  );
}

/** Diagnoses a text that is not a file: the report's "-" lines are mapped back to where the text came from. */
async function diagnoseAndShow(ctx: CommandContext, text: string, origin: string, where: Where): Promise<void> {
  const fl = readFaultline();
  try {
    const report = await withProgress(`faultline: diagnosing ${origin}`, (signal) => diagnoseText(fl, text, signal));
    ctx.status.setCommandReport(report, origin);
    showReport(ctx, report, origin, where);
  } catch (e) {
    void vscode.window.showErrorMessage(`faultline: ${errorText(e)}`);
  }
}

async function diagnoseSelection(ctx: CommandContext): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    void vscode.window.showInformationMessage("faultline: open a log and select the lines to diagnose.");
    return;
  }
  const document = editor.document;
  const name = path.basename(document.fileName);
  const selection = editor.selection;
  // No selection: the whole document.
  const text = selection.isEmpty ? document.getText() : document.getText(selection);
  const firstLine = selection.isEmpty ? 0 : selection.start.line;
  const origin = selection.isEmpty ? name : `the selection in ${name}`;
  await diagnoseAndShow(ctx, text, origin, (source, line) =>
    source === "-" ? `line ${firstLine + line} of ${name}` : `${source}:${line}`,
  );
}

async function diagnoseTerminal(ctx: CommandContext): Promise<void> {
  const terminal = vscode.window.activeTerminal;
  if (!terminal) {
    void vscode.window.showInformationMessage("faultline: no terminal is active.");
    return;
  }
  const output = ctx.terminals.recorded(terminal) ?? (await copyTerminalBuffer(terminal));
  if (!output) {
    void vscode.window.showInformationMessage("faultline: the terminal has no output to diagnose.");
    return;
  }
  await diagnoseAndShow(ctx, output.text, output.origin, (source, line) =>
    source === "-" ? `line ${line} of ${output.origin}` : `${source}:${line}`,
  );
}

async function diagnoseFile(ctx: CommandContext, clicked?: vscode.Uri, selected?: vscode.Uri[]): Promise<void> {
  // From the explorer: the selected files; from the palette: a dialog (several files are one job's logs).
  let uris = selected && selected.length > 0 ? selected : clicked ? [clicked] : undefined;
  uris ??= await vscode.window.showOpenDialog({ canSelectMany: true, openLabel: "Diagnose", title: "faultline: logs of one job" });
  if (!uris || uris.length === 0) return;
  const files = uris.filter((u) => u.scheme === "file").map((u) => u.fsPath);
  if (files.length === 0) {
    void vscode.window.showErrorMessage("faultline: only files on this machine can be diagnosed.");
    return;
  }
  const fl: Faultline = readFaultline();
  const origin = files.length === 1 ? path.basename(files[0] ?? "") : `${files.length} files`;
  try {
    const report = await withProgress(`faultline: diagnosing ${origin}`, (signal) => diagnoseFiles(fl, files, signal));
    ctx.status.setCommandReport(report, origin);
    showReport(ctx, report, origin);
  } catch (e) {
    void vscode.window.showErrorMessage(`faultline: ${errorText(e)}`);
  }
}

/** The report of the active log (the server's, else the CLI's on its text), or of the last Diagnose command. */
async function showActiveReport(ctx: CommandContext): Promise<void> {
  const document = vscode.window.activeTextEditor?.document;
  if (document && isLogDocument(document)) {
    const name = path.basename(document.fileName);
    let report: Report | null = null;
    try {
      report = await ctx.server.report(document.uri);
    } catch (e) {
      ctx.server.log(`faultline/report failed, diagnosing with the CLI: ${errorText(e)}`);
    }
    if (report) {
      showReport(ctx, report, name);
      return;
    }
    await diagnoseAndShow(ctx, document.getText(), name, (source, line) => (source === "-" ? `line ${line} of ${name}` : `${source}:${line}`));
    return;
  }
  const last = ctx.status.commandReport;
  if (last) showReport(ctx, last.report, last.origin);
  else void vscode.window.showInformationMessage("faultline: open a log, or run a Diagnose command first.");
}

async function showEntry(ctx: CommandContext, entryId: unknown): Promise<void> {
  if (typeof entryId !== "string" || !ENTRY_ID.test(entryId) || entryId === "unknown") {
    void vscode.window.showErrorMessage("faultline: no such entry.");
    return;
  }
  try {
    const markdown = await explainEntry(readFaultline(), entryId);
    ctx.entryPage.show(`faultline: ${entryId}`, (page) => renderEntryHtml(entryId, markdown, page));
  } catch (e) {
    void vscode.window.showErrorMessage(`faultline: ${errorText(e)}`);
  }
}

/**
 * Used by the webview's copy links and by the language server's code actions.
 * What is pasted into a terminal must not carry escape sequences or control
 * characters, whoever sent the text.
 */
async function copyText(text: unknown): Promise<void> {
  if (typeof text !== "string") return;
  await vscode.env.clipboard.writeText(displayText(text));
  vscode.window.setStatusBarMessage("faultline: copied", 2000);
}

export function registerCommands(ctx: CommandContext): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand("faultline.diagnoseSelection", () => diagnoseSelection(ctx)),
    vscode.commands.registerCommand("faultline.diagnoseTerminal", () => diagnoseTerminal(ctx)),
    vscode.commands.registerCommand("faultline.diagnoseFile", (clicked?: vscode.Uri, selected?: vscode.Uri[]) =>
      diagnoseFile(ctx, clicked, selected),
    ),
    vscode.commands.registerCommand("faultline.showReport", () => showActiveReport(ctx)),
    vscode.commands.registerCommand("faultline.showEntry", (entryId: unknown) => showEntry(ctx, entryId)),
    vscode.commands.registerCommand("faultline.copyText", (text: unknown) => copyText(text)),
  ];
}
