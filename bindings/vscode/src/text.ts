// Text from logs and terminals is untrusted: these helpers take out what a
// terminal or a renderer would interpret. Pure (no vscode import) so the unit
// tests run in plain Node.

// ESC-introduced sequences: CSI (ESC [ ... final byte), OSC (ESC ] ... BEL or
// ESC \, which carries VS Code's shell-integration marks), other string
// controls (DCS, SOS, PM, APC up to ST), and two-byte escapes. The 8-bit CSI
// (U+009B) and OSC (U+009D) forms are handled the same way.
const ESCAPE_SEQUENCE =
  // eslint-disable-next-line no-control-regex
  /(?:\u001b\[|\u009b)[\u0030-\u003f]*[\u0020-\u002f]*[\u0040-\u007e]?|(?:\u001b[\]PX^_]|[\u009d\u0090\u0098\u009e\u009f])[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|\u001b[\u0020-\u002f]*[\u0030-\u007e]?/g;

// What is left after the sequences are gone and must still not reach a
// terminal or a page: C0 controls but tab and newline, DEL, C1 controls, and
// the bidirectional overrides and isolates that reorder what is displayed.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** Removes terminal escape sequences (colors, cursor moves, OSC marks). */
export function stripAnsi(text: string): string {
  return text.replace(ESCAPE_SEQUENCE, "");
}

/**
 * Text safe to show anywhere: escape sequences removed, every other control
 * character replaced by U+FFFD so that its presence stays visible.
 */
export function displayText(text: string): string {
  return stripAnsi(text).replace(CONTROL_CHARACTER, "\ufffd");
}

/**
 * A terminal's output as a log: escape sequences removed and CRLF made LF.
 * A lone CR (a progress bar redrawing its line) is kept: faultline reads it.
 */
export function terminalOutputAsLog(raw: string): string {
  return stripAnsi(raw).replace(/\r\n/g, "\n");
}

/** Cuts text to at most `max` characters, saying so. */
export function truncate(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, max) + " …";
}
