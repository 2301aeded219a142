// The report page escapes every piece of report text and writes only its own markup.

import * as assert from "node:assert/strict";
import { test } from "node:test";
import { commandUri, contentSecurityPolicy } from "../src/html";
import { displayText } from "../src/text";
import { renderReportHtml } from "../src/reportHtml";
import { HOSTILE, hostileReport, markupProblems } from "./fixtures";

const PAGE = { cspSource: "https://file+.vscode-resource.vscode-cdn.net", styleUri: "https://file+.vscode-resource.vscode-cdn.net/media/report.css" };

test("hostile report text is escaped, never markup", () => {
  const html = renderReportHtml(hostileReport(), PAGE);
  assert.deepEqual(markupProblems(html, PAGE.styleUri), []);
  assert.ok(!html.includes("<script"), "no script tag");
  assert.ok(!html.includes("<img"), "no img tag");
  assert.ok(html.includes("&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt;"), "the script text is shown as text");
  assert.ok(html.includes("&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"), "the attribute breakout is shown as text");
  assert.ok(!html.includes("\u001b"), "no escape character");
});

test("the root's entry, rank and host are on the page", () => {
  const report = hostileReport();
  const html = renderReportHtml(report, PAGE);
  assert.ok(html.includes(`href="${commandUri("faultline.showEntry", ["cuda-out-of-memory"])}"`), "entry link");
  assert.ok(html.includes("<strong>5</strong>"), "rank");
  assert.ok(html.includes("node-b&quot;&gt;&lt;img"), "host, escaped");
});

/** An attribute value as the browser reads it. */
function unescapeAttribute(value: string): string {
  return value.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
}

test("copy links carry the command text as shown (no control characters)", () => {
  const report = hostileReport();
  const html = renderReportHtml(report, PAGE);
  const copied = [...html.matchAll(/href="command:faultline\.copyText\?([^"]*)"/g)].map((m) => {
    const args: unknown = JSON.parse(decodeURIComponent(unescapeAttribute(m[1] ?? "")));
    return (args as string[])[0];
  });
  const expected = [...report.fix.commands.map((c) => c.run), ...report.verify.map((v) => v.run)].map(displayText);
  assert.ok(expected[0]?.includes("<script>"), "markup in a command is kept, as text");
  assert.deepEqual(copied, expected);
});

test("only http(s) references become links", () => {
  const html = renderReportHtml(hostileReport(), PAGE);
  assert.ok(html.includes('href="https://pytorch.org/docs/stable/notes/cuda.html"'));
  assert.ok(!html.includes("javascript:"));
});

test("the page's policy allows no script and no network", () => {
  const html = renderReportHtml(hostileReport(), PAGE);
  const csp = contentSecurityPolicy(PAGE.cspSource);
  assert.ok(csp.startsWith("default-src 'none';"));
  assert.ok(!csp.includes("script-src"));
  assert.ok(html.includes(`content="default-src &#39;none&#39;; style-src ${PAGE.cspSource};`));
});

test("a selection's lines are named in the document", () => {
  const report = hostileReport();
  if (report.root) report.root.source = "-";
  const html = renderReportHtml(report, { ...PAGE, origin: "the selection in train.log", where: (s, l) => (s === "-" ? `line ${l + 100} of train.log` : `${s}:${l}`) });
  assert.ok(html.includes("line 116 of train.log"));
  assert.ok(html.includes("Diagnosis of the selection in train.log"));
});

test("no failure: no root section, the verdict says so", () => {
  const report = hostileReport();
  report.verdict = "no-failure";
  report.root = null;
  report.collateral = [];
  const html = renderReportHtml(report, PAGE);
  assert.ok(html.includes("No failure found"));
  assert.ok(!html.includes("Why this is the root"));
  assert.deepEqual(markupProblems(html, PAGE.styleUri), []);
});

test("hostile strings survive as visible text", () => {
  // The text is kept (escaped), not dropped: a user must see what the log said.
  const html = renderReportHtml(hostileReport(), PAGE);
  assert.ok(html.includes("red link"), "ANSI colors and OSC links removed, their text kept");
  assert.ok(html.includes("bell\ufffd nul\ufffd"), "controls shown as U+FFFD");
  assert.ok(html.includes(`bidi\ufffdeman.exe`), "bidi override made visible");
  assert.ok(!HOSTILE.script.includes("&"), "the fixture itself is raw");
});
