// The output of a terminal's last command. With shell integration (VS Code
// 1.93+), every command's output is recorded while it runs (execution.read()
// sees only what is written after it is called), keeping the last 8 MiB; the
// last command is taken, or the last failed one when the last succeeded.
// Without shell integration: the terminal's buffer (its scrollback), selected
// and copied through the clipboard, which is then restored.

import * as vscode from "vscode";
import { OutputTail } from "./outputTail";
import { displayText, terminalOutputAsLog, truncate } from "./text";

const MAX_RECORDED_CHARS = 8 * 1024 * 1024;

interface Recording {
  commandLine: string;
  tail: OutputTail;
  exitCode: number | undefined;
  ended: boolean;
}

interface TerminalRecordings {
  last?: Recording;
  lastFailed?: Recording;
}

export interface TerminalOutput {
  text: string;
  /** Where the text came from, for the report's title. */
  origin: string;
}

export class TerminalRecorder implements vscode.Disposable {
  private readonly terminals = new Map<vscode.Terminal, TerminalRecordings>();
  private readonly subscriptions: vscode.Disposable[];

  constructor() {
    this.subscriptions = [
      vscode.window.onDidStartTerminalShellExecution((e) => {
        this.record(e.terminal, e.execution);
      }),
      vscode.window.onDidEndTerminalShellExecution((e) => {
        this.ended(e.terminal, e.execution, e.exitCode);
      }),
      vscode.window.onDidCloseTerminal((t) => this.terminals.delete(t)),
    ];
  }

  private readonly executions = new WeakMap<vscode.TerminalShellExecution, Recording>();

  private record(terminal: vscode.Terminal, execution: vscode.TerminalShellExecution): void {
    const recording: Recording = {
      commandLine: execution.commandLine.value,
      tail: new OutputTail(MAX_RECORDED_CHARS),
      exitCode: undefined,
      ended: false,
    };
    this.executions.set(execution, recording);
    const recordings = this.terminals.get(terminal) ?? {};
    recordings.last = recording;
    this.terminals.set(terminal, recordings);
    const stream = execution.read();
    void (async () => {
      try {
        for await (const chunk of stream) recording.tail.append(chunk);
      } catch {
        // The terminal was closed while the command ran: what was read is kept.
      }
    })();
  }

  private ended(terminal: vscode.Terminal, execution: vscode.TerminalShellExecution, exitCode: number | undefined): void {
    const recording = this.executions.get(execution);
    if (!recording) return;
    recording.ended = true;
    recording.exitCode = exitCode;
    const recordings = this.terminals.get(terminal);
    if (recordings && exitCode !== 0) recordings.lastFailed = recording;
  }

  /** The recorded output to diagnose for a terminal, if shell integration recorded any. */
  recorded(terminal: vscode.Terminal): TerminalOutput | undefined {
    const recordings = this.terminals.get(terminal);
    const last = recordings?.last;
    if (!recordings || !last) return undefined;
    const chosen = last.ended && last.exitCode === 0 && recordings.lastFailed ? recordings.lastFailed : last;
    const text = terminalOutputAsLog(chosen.tail.text());
    if (text.trim() === "") return undefined;
    const state = chosen.ended ? `exit status ${chosen.exitCode === undefined ? "unknown" : String(chosen.exitCode)}` : "running";
    const cut = chosen.tail.truncated ? ", its last 8 MiB" : "";
    const command = truncate(displayText(chosen.commandLine), 200);
    return { text, origin: `the output of \`${command}\` (${state}${cut})` };
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    this.terminals.clear();
  }
}

/**
 * The terminal's buffer through the clipboard: select all, copy, clear the
 * selection, then put the user's clipboard back. A marker written first tells
 * an empty copy from the user's own clipboard text.
 */
export async function copyTerminalBuffer(terminal: vscode.Terminal): Promise<TerminalOutput | undefined> {
  const saved = await vscode.env.clipboard.readText();
  const marker = `faultline-no-copy-${String(Date.now())}-${String(Math.random())}`;
  try {
    terminal.show(false);
    await vscode.env.clipboard.writeText(marker);
    await vscode.commands.executeCommand("workbench.action.terminal.selectAll");
    await vscode.commands.executeCommand("workbench.action.terminal.copySelection");
    await vscode.commands.executeCommand("workbench.action.terminal.clearSelection");
    const copied = await vscode.env.clipboard.readText();
    if (copied === marker || copied.trim() === "") return undefined;
    return { text: terminalOutputAsLog(copied), origin: "the terminal's buffer" };
  } finally {
    await vscode.env.clipboard.writeText(saved);
  }
}
