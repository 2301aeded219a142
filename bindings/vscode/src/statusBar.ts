// The status bar's verdict: of the active log document (the language
// server's report, else its diagnostics), or else of the last Diagnose
// command. A click shows the report.

import * as vscode from "vscode";
import type { ServerConnection } from "./client";
import { isLogDocument } from "./documents";
import type { Report } from "./report";
import { factsOfDiagnostics, factsOfReport, statusVerdict, type VerdictFacts } from "./verdict";

export class VerdictStatus implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem("faultline.verdict", vscode.StatusBarAlignment.Left, 10);
  private readonly subscriptions: vscode.Disposable[];
  private lastCommand: { report: Report; origin: string } | undefined;
  private pending: NodeJS.Timeout | undefined;
  private generation = 0;

  constructor(private readonly server: ServerConnection) {
    this.item.name = "faultline verdict";
    this.item.command = "faultline.showReport";
    this.subscriptions = [
      vscode.window.onDidChangeActiveTextEditor(() => {
        this.schedule();
      }),
      vscode.languages.onDidChangeDiagnostics((e) => {
        const active = vscode.window.activeTextEditor?.document.uri.toString();
        if (active !== undefined && e.uris.some((u) => u.toString() === active)) this.schedule();
      }),
    ];
    this.schedule();
  }

  /** A Diagnose command's report: shown while no log document is active. */
  setCommandReport(report: Report, origin: string): void {
    this.lastCommand = { report, origin };
    this.schedule();
  }

  get commandReport(): { report: Report; origin: string } | undefined {
    return this.lastCommand;
  }

  /** Updates after a short pause: diagnostics arrive in bursts while a log is typed or grows. */
  schedule(): void {
    if (this.pending) clearTimeout(this.pending);
    this.pending = setTimeout(() => {
      this.pending = undefined;
      void this.update();
    }, 250);
  }

  private async update(): Promise<void> {
    const generation = ++this.generation;
    const document = vscode.window.activeTextEditor?.document;
    let facts: VerdictFacts | undefined;
    let tooltipPrefix = "";
    if (document && isLogDocument(document) && this.server.running) {
      facts = await this.documentFacts(document);
    } else if (this.lastCommand) {
      facts = factsOfReport(this.lastCommand.report);
      tooltipPrefix = `Last diagnosis: ${this.lastCommand.origin}\n`;
    }
    if (generation !== this.generation) return; // a newer update started while the server answered
    if (!facts) {
      this.item.hide();
      return;
    }
    const shown = statusVerdict(facts);
    this.item.text = shown.text;
    this.item.tooltip = tooltipPrefix + shown.tooltip;
    this.item.show();
  }

  private async documentFacts(document: vscode.TextDocument): Promise<VerdictFacts> {
    try {
      const report = await this.server.report(document.uri);
      if (report) return factsOfReport(report);
    } catch {
      // A server without faultline/report, or a report that did not parse: its diagnostics still say enough.
    }
    const diagnostics = vscode.languages.getDiagnostics(document.uri).map((d) => ({
      source: d.source,
      severity: d.severity === vscode.DiagnosticSeverity.Error ? 0 : 1,
      code: typeof d.code === "object" ? d.code.value : d.code,
    }));
    return factsOfDiagnostics(diagnostics);
  }

  dispose(): void {
    if (this.pending) clearTimeout(this.pending);
    this.item.dispose();
    for (const s of this.subscriptions) s.dispose();
  }
}
