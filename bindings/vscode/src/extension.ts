// Activation: the language client, the commands, the terminal recorder, the
// report and entry pages, and the status bar.

import * as vscode from "vscode";
import { ServerConnection } from "./client";
import { registerCommands } from "./commands";
import { affectsServer, readFaultline } from "./settings";
import { VerdictStatus } from "./statusBar";
import { TerminalRecorder } from "./terminalCapture";
import { WebviewPage } from "./webviewPanel";

let server: ServerConnection | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel("faultline");
  server = new ServerConnection(output);
  const connection = server;
  const status = new VerdictStatus(connection);
  const terminals = new TerminalRecorder();
  const reportPage = new WebviewPage("faultline.report", context.extensionUri, vscode.ViewColumn.Beside);
  const entryPage = new WebviewPage("faultline.entry", context.extensionUri, vscode.ViewColumn.Beside);
  context.subscriptions.push(
    output,
    connection,
    status,
    terminals,
    reportPage,
    entryPage,
    ...registerCommands({ server: connection, status, terminals, reportPage, entryPage }),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (affectsServer(e)) {
        await connection.start(readFaultline());
        status.schedule();
      }
    }),
  );
  await connection.start(readFaultline());
  status.schedule();
}

export async function deactivate(): Promise<void> {
  await server?.stop();
  server = undefined;
}
