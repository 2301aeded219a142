import * as assert from "node:assert/strict";
import { test } from "node:test";
import { commandUri, escapeHtml } from "../src/html";

test("escapeHtml escapes markup and both quotes", () => {
  assert.equal(escapeHtml(`<a href="x" title='y'>&</a>`), "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;");
});

test("escapeHtml removes terminal sequences and shows other controls", () => {
  assert.equal(escapeHtml("\u001b[1;31mError\u001b[0m"), "Error");
  assert.equal(escapeHtml("a\u0000b\u007fc\u0085d"), "a\ufffdb\ufffdc\ufffdd");
  assert.equal(escapeHtml("tab\tand\nnewline"), "tab\tand\nnewline");
});

test("commandUri round-trips any text as one JSON argument", () => {
  const text = `rm -rf "$HOME"; echo '<b>' & \u2028 done`;
  const uri = commandUri("faultline.copyText", [text]);
  assert.ok(uri.startsWith("command:faultline.copyText?"));
  assert.ok(!/[\s"<>]/.test(uri), "nothing that could end a URI or a double-quoted attribute");
  assert.deepEqual(JSON.parse(decodeURIComponent(uri.slice(uri.indexOf("?") + 1))), [text]);
});
