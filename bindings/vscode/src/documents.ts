// Which documents are logs: the `log` language, plain-text *.log, *.out and
// *.err files, and untitled documents (a pasted log). The language server
// gets the same selector.

import * as vscode from "vscode";

/** Plain filters: both vscode.languages.match and the language client take them. */
export const LOG_DOCUMENTS: { scheme: string; language: string; pattern?: string }[] = [
  { scheme: "file", language: "log" },
  { scheme: "untitled", language: "log" },
  { scheme: "file", language: "plaintext", pattern: "**/*.{log,out,err}" },
  { scheme: "untitled", language: "plaintext" },
];

export function isLogDocument(document: vscode.TextDocument): boolean {
  return vscode.languages.match(LOG_DOCUMENTS, document) > 0;
}
