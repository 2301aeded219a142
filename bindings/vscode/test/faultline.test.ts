// With the real faultline (FAULTLINE_BIN): the golden two-node job's report
// through the extension's CLI path and its renderer, and a log whose root line
// carries hostile text. Skipped without FAULTLINE_BIN.

import * as assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { diagnoseFiles, diagnoseText, explainEntry } from "../src/diagnose";
import { renderEntryHtml } from "../src/entryHtml";
import { asReport, type Report } from "../src/report";
import { renderReportHtml } from "../src/reportHtml";
import { REPO_ROOT, markupProblems } from "./fixtures";

const bin = process.env.FAULTLINE_BIN;
const skip = bin ? false : "FAULTLINE_BIN is not set";
const fl = { executable: bin ?? "faultline", packs: [] };
const JOB = path.join(REPO_ROOT, "tests/golden/multirank/oom-rank5");
const PAGE = { cspSource: "vscode-resource:", styleUri: "vscode-resource:/media/report.css" };

/** Every string of a JSON value. */
function strings(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (typeof value === "object" && value !== null) return Object.entries(value).flatMap(([k, v]) => [k, ...strings(v)]);
  return [];
}

test("the golden job: the extension's report is the CLI's, and its page names the root entry and rank", { skip }, async () => {
  const report = await diagnoseFiles(fl, [JOB]);
  // The same command line by hand: the extension added, dropped or changed nothing.
  const direct = JSON.parse(execFileSync(bin ?? "", ["diagnose", "--json", JOB], { encoding: "utf8" })) as unknown;
  assert.deepEqual(report, asReport(direct));
  const root = report.root;
  assert.ok(root && root.rank !== null, "the job has a root with a rank");
  const html = renderReportHtml(report, PAGE);
  assert.ok(html.includes(`<code>${root.id}</code>`), "root entry id");
  assert.ok(html.includes(`<strong>${root.rank}</strong>`), "root rank");
  for (const c of report.collateral) assert.ok(html.includes(`<code>${c.id}</code>`), `collateral ${c.id}`);
  assert.deepEqual(markupProblems(html, PAGE.styleUri), []);
});

test("a root line with markup and escapes in it is shown as text", { skip }, async () => {
  const log = fs.readFileSync(path.join(JOB, "node-b.log"), "utf8");
  const hostile = '<script>alert("x")</script><img src=x onerror=alert(1)> \u001b[31m\u001b]0;title\u0007';
  // Before the message: the line's text is cut at 480 bytes, the pattern still matches.
  const spoiled = log.replace("torch.OutOfMemoryError: CUDA out of memory.", `${hostile} torch.OutOfMemoryError: CUDA out of memory.`);
  assert.notEqual(spoiled, log, "the fixture has the OOM line");
  const report: Report = await diagnoseText(fl, spoiled);
  assert.equal(report.root?.source, "-");
  assert.ok(strings(report).some((s) => s.includes("<script>")), "the hostile text is in the report");
  const html = renderReportHtml(report, PAGE);
  assert.deepEqual(markupProblems(html, PAGE.styleUri), []);
  assert.ok(html.includes("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;"));
  // Every string of the report that has a "<" appears only escaped.
  for (const s of strings(report).filter((t) => t.includes("<"))) assert.ok(!html.includes(s), s);
});

test("an entry page renders from faultline explain --markdown", { skip }, async () => {
  const markdown = await explainEntry(fl, "cuda-out-of-memory");
  const html = renderEntryHtml("cuda-out-of-memory", markdown, PAGE);
  assert.deepEqual(markupProblems(html, PAGE.styleUri), []);
  const title = /^# (.*)$/m.exec(markdown)?.[1] ?? "";
  assert.ok(title.length > 0);
  assert.ok(html.includes("<h2>Fix</h2>"));
});

test("faultline's error is the message", { skip }, async () => {
  await assert.rejects(diagnoseFiles(fl, [path.join(JOB, "no-such.log")]), /faultline diagnose failed \(exit status 2\)/);
});
