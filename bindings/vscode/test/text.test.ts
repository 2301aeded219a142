import * as assert from "node:assert/strict";
import { test } from "node:test";
import { displayText, stripAnsi, terminalOutputAsLog, truncate } from "../src/text";

test("stripAnsi removes colors, cursor moves and OSC marks", () => {
  assert.equal(stripAnsi("\u001b[31mred\u001b[0m \u001b[2K\u001b[1Gline"), "red line");
  // VS Code's shell-integration marks, ended by BEL and by ST.
  assert.equal(stripAnsi("\u001b]633;C\u0007out\u001b]633;D;1\u001b\\"), "out");
  assert.equal(stripAnsi("\u001b(Bplain\u001b="), "plain");
  assert.equal(stripAnsi("\u009b1mC1 csi"), "C1 csi");
});

test("displayText leaves no control character but tab and newline", () => {
  const all = Array.from({ length: 0xa0 }, (_, i) => String.fromCharCode(i)).join("");
  const shown = displayText(all);
  // eslint-disable-next-line no-control-regex
  assert.ok(!/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(shown));
  assert.ok(shown.includes("\t\n"));
  assert.ok(shown.includes(" !\"#$%&'()*+,-./0123456789"), "printable ASCII kept");
});

test("terminal output becomes log lines", () => {
  assert.equal(terminalOutputAsLog("\u001b]633;E;train\u0007a\r\nb\r\n"), "a\nb\n");
  assert.equal(terminalOutputAsLog("10%\r20%\r\n"), "10%\r20%\n", "a progress bar's CR is kept");
});

test("truncate says it cut", () => {
  assert.equal(truncate("abcdef", 3), "abc …");
  assert.equal(truncate("abc", 3), "abc");
});
