// The language client of `faultline lsp`: started with the configured
// executable and packs, restarted when they change, and asked for the report
// of a document (the server's custom request faultline/report).

import * as vscode from "vscode";
import { LanguageClient, type LanguageClientOptions, type ServerOptions } from "vscode-languageclient/node";
import { lspArgs } from "./cliArgs";
import type { Faultline } from "./diagnose";
import { LOG_DOCUMENTS } from "./documents";
import { KeepCommandsLocal } from "./localCommands";
import { asReport, type Report } from "./report";
import { displayText } from "./text";

export class ServerConnection implements vscode.Disposable {
  private client: LanguageClient | undefined;

  constructor(private readonly output: vscode.OutputChannel) {}

  /** Starts the server (stopping a running one first). A server that cannot start is reported once. */
  async start(fl: Faultline): Promise<void> {
    await this.stop();
    // An argument array, no shell: the executable and packs are passed as they are.
    const serverOptions: ServerOptions = { command: fl.executable, args: lspArgs(fl.packs), options: { shell: false } };
    const clientOptions: LanguageClientOptions = {
      documentSelector: LOG_DOCUMENTS,
      outputChannel: this.output,
      traceOutputChannel: this.output,
    };
    const client = new LanguageClient("faultline", "faultline", serverOptions, clientOptions);
    client.registerFeature(new KeepCommandsLocal(["faultline.showEntry", "faultline.copyText"]));
    this.client = client;
    try {
      await client.start();
    } catch (e) {
      this.client = undefined;
      const why = e instanceof Error ? e.message : String(e);
      this.output.appendLine(`faultline lsp did not start: ${why}`);
      void this.offerSettings(
        `faultline: the language server (${fl.executable} lsp) did not start (${displayText(why)}); the Diagnose commands work without it.`,
      );
    }
  }

  private async offerSettings(message: string): Promise<void> {
    const choice = await vscode.window.showWarningMessage(message, "Open Settings");
    if (choice === "Open Settings") await vscode.commands.executeCommand("workbench.action.openSettings", "faultline.path");
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client?.isRunning()) await client.stop();
  }

  /** A line in the faultline output channel. */
  log(line: string): void {
    this.output.appendLine(line);
  }

  get running(): boolean {
    return this.client?.isRunning() ?? false;
  }

  /** The server's report of a document, or null when no server runs or it has none for the document. */
  async report(uri: vscode.Uri): Promise<Report | null> {
    const client = this.client;
    if (!client?.isRunning()) return null;
    const params = { textDocument: { uri: client.code2ProtocolConverter.asUri(uri) } };
    const value: unknown = await client.sendRequest("faultline/report", params);
    return value === null || value === undefined ? null : asReport(value);
  }

  dispose(): void {
    void this.stop();
  }
}
