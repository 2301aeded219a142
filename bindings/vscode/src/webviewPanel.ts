// One webview panel that is shown again rather than opened twice: the report,
// or an entry page. No scripts; links run only faultline.showEntry and
// faultline.copyText; resources only from the extension's media folder.

import * as vscode from "vscode";

export interface PageContext {
  cspSource: string;
  styleUri: string;
}

export class WebviewPage implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;

  constructor(
    private readonly viewType: string,
    private readonly extensionUri: vscode.Uri,
    private readonly column: vscode.ViewColumn,
  ) {}

  /** Shows the page that `render` builds for this webview's CSP source and style sheet. */
  show(title: string, render: (context: PageContext) => string): void {
    const media = vscode.Uri.joinPath(this.extensionUri, "media");
    if (!this.panel) {
      this.panel = vscode.window.createWebviewPanel(
        this.viewType,
        title,
        { viewColumn: this.column, preserveFocus: true },
        {
          enableScripts: false,
          enableForms: false,
          enableCommandUris: ["faultline.showEntry", "faultline.copyText"],
          localResourceRoots: [media],
        },
      );
      this.panel.onDidDispose(() => {
        this.panel = undefined;
      });
    } else {
      this.panel.reveal(this.column, true);
    }
    const webview = this.panel.webview;
    this.panel.title = title;
    webview.html = render({
      cspSource: webview.cspSource,
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(media, "report.css")).toString(),
    });
  }

  dispose(): void {
    this.panel?.dispose();
  }
}
