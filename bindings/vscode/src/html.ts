// HTML built as strings, every piece of report or pack text escaped on the way
// in: the webview never parses text from a log as markup. Pure (no vscode).

import { displayText } from "./text";

const HTML_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Text as HTML content or a quoted attribute value: controls made visible, markup escaped. */
export function escapeHtml(text: string): string {
  return displayText(text).replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);
}

/**
 * A `command:` URI for a webview link: the arguments as a JSON array, URI
 * encoded, so any text survives as data. The webview only runs the commands
 * listed in its enableCommandUris.
 */
export function commandUri(command: string, args: readonly unknown[]): string {
  return `command:${command}?${encodeURIComponent(JSON.stringify(args))}`;
}

/** The Content-Security-Policy of every faultline webview: no scripts, no network, styles from the extension. */
export function contentSecurityPolicy(cspSource: string): string {
  return `default-src 'none'; style-src ${cspSource}; img-src ${cspSource}; font-src ${cspSource}`;
}

/** A whole page around an already escaped body. */
export function page(title: string, body: string, opts: { cspSource: string; styleUri: string }): string {
  return [
    "<!DOCTYPE html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${escapeHtml(contentSecurityPolicy(opts.cspSource))}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<link rel="stylesheet" href="${escapeHtml(opts.styleUri)}">`,
    `<title>${escapeHtml(title)}</title>`,
    "</head>",
    `<body>\n${body}\n</body>`,
    "</html>",
  ].join("\n");
}
