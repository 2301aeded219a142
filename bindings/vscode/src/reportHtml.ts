// The report as an HTML page for the webview. Every string from the report is
// escaped (log lines are untrusted); links are only command URIs of the two
// commands the webview allows, and the report's http(s) references. Pure.

import { commandUri, escapeHtml, page } from "./html";
import { formatRanks } from "./ranks";
import { ENTRY_ID, type Finding, type Report, type Root } from "./report";
import { displayText } from "./text";

export interface RenderOptions {
  cspSource: string;
  styleUri: string;
  /** What was diagnosed ("the selection in train.log"), shown under the verdict. */
  origin?: string;
  /** How to name a source and line; the default is "SOURCE:LINE". */
  where?: (source: string, line: number) => string;
}

const VERDICT_HEADLINE: Record<Report["verdict"], string> = {
  failure: "Failure",
  inconclusive: "Inconclusive: only collateral in the logs",
  "no-failure": "No failure found",
};

function defaultWhere(source: string, line: number): string {
  return `${source}:${line}`;
}

/** An entry id linked to its page when it is a real entry id. */
function entryLink(id: string): string {
  if (id === "unknown" || !ENTRY_ID.test(id)) return `<code>${escapeHtml(id)}</code>`;
  return `<a href="${escapeHtml(commandUri("faultline.showEntry", [id]))}"><code>${escapeHtml(id)}</code></a>`;
}

/** A link that copies the text as it is shown: without escape sequences or control characters. */
function copyLink(text: string): string {
  text = displayText(text);
  return `<a class="copy" title="Copy to the clipboard" href="${escapeHtml(commandUri("faultline.copyText", [text]))}">copy</a>`;
}

function definitionList(rows: [string, string][]): string {
  const items = rows.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${v}</dd>`);
  return `<dl>${items.join("")}</dl>`;
}

function list(items: readonly string[]): string {
  return `<ul>${items.map((s) => `<li>${escapeHtml(s)}</li>`).join("")}</ul>`;
}

function rootSection(root: Root, where: (s: string, l: number) => string): string {
  const rows: [string, string][] = [
    ["entry", `${entryLink(root.id)} (type <code>${escapeHtml(root.type)}</code>, ${escapeHtml(root.role)})`],
    ["category", escapeHtml(`${root.category}, severity ${root.severity}`)],
  ];
  if (root.rank !== null) {
    let rank = `<strong>${root.rank}</strong>`;
    if (root.rank_evidence) {
      const e = root.rank_evidence;
      rank += ` <span class="muted">(${escapeHtml(`${e.source}, ${e.certainty}: ${e.detail}`)})</span>`;
    }
    rows.push(["rank", rank]);
  } else {
    rows.push(["rank", '<span class="muted">not known</span>']);
  }
  if (root.ranks.length > 1) rows.push(["fired on ranks", escapeHtml(formatRanks(root.ranks))]);
  rows.push(["host", root.host === null ? '<span class="muted">not known</span>' : escapeHtml(root.host)]);
  rows.push(["where", escapeHtml(where(root.source, root.line))]);
  if (root.time !== null) rows.push(["time", escapeHtml(root.time)]);
  if (root.exception) rows.push(["exception", `<code>${escapeHtml(root.exception)}</code>`]);
  const fields = Object.entries(root.fields);
  if (fields.length > 0) {
    rows.push(["fields", fields.map(([k, v]) => `<code>${escapeHtml(k)}</code> = <code>${escapeHtml(v)}</code>`).join(", ")]);
  }
  return [
    '<section class="root">',
    `<h2>${escapeHtml(root.title)}</h2>`,
    definitionList(rows),
    `<pre class="logline">${escapeHtml(root.text)}</pre>`,
    "</section>",
  ].join("\n");
}

function decisionSection(report: Report): string {
  const c = report.confidence;
  const rows: [string, string][] = [
    ["decided by", `<code>${escapeHtml(report.decided_by)}</code>`],
    ["confidence", escapeHtml(`${c.score.toFixed(2)} (${c.level})`)],
  ];
  let html = `<section><h2>Why this is the root</h2>${definitionList(rows)}`;
  if (c.reasons.length > 0) html += list(c.reasons);
  if (report.missing_evidence.length > 0) html += `<h3>Missing evidence</h3>${list(report.missing_evidence)}`;
  return html + "</section>";
}

function actionSection(report: Report): string {
  const a = report.action;
  const rows: [string, string][] = [
    ["next step", `<code>${escapeHtml(a.name)}</code> ${escapeHtml(a.advice)}`],
    ["retry", a.retry ? "yes" : "no"],
  ];
  if (a.exclude_hosts.length > 0) rows.push(["exclude hosts", escapeHtml(a.exclude_hosts.join(", "))]);
  return `<section><h2>Action</h2>${definitionList(rows)}</section>`;
}

function commandBlock(run: string, note: string): string {
  return [
    '<div class="command">',
    `<pre><code>${escapeHtml(run)}</code></pre>`,
    `<p>${copyLink(run)} ${escapeHtml(note)}</p>`,
    "</div>",
  ].join("\n");
}

function fixSection(report: Report): string {
  const { steps, commands } = report.fix;
  if (steps.length === 0 && commands.length === 0 && report.verify.length === 0) return "";
  let html = "<section><h2>Fix</h2>";
  if (steps.length > 0) html += `<ol>${steps.map((s) => `<li>${escapeHtml(s)}</li>`).join("")}</ol>`;
  for (const c of commands) html += commandBlock(c.run, c.explain);
  if (report.verify.length > 0) {
    html += "<h2>Verify</h2>";
    for (const v of report.verify) html += commandBlock(v.run, `expect: ${v.expect}`);
  }
  return html + "</section>";
}

function findingItem(f: Finding, where: (s: string, l: number) => string): string {
  const ranks = f.ranks.length > 0 ? `ranks ${formatRanks(f.ranks, f.more_ranks)}` : "rank unknown";
  const lines = f.count === 1 ? "1 line" : `${f.count} lines`;
  return [
    "<li>",
    `${entryLink(f.id)} <span class="muted">${escapeHtml(`${ranks}, ${lines}`)}</span>`,
    `<div>${escapeHtml(f.title)}</div>`,
    `<div class="reason">${escapeHtml(f.reason)}</div>`,
    `<div class="muted">first: ${escapeHtml(where(f.first.source, f.first.line))}</div>`,
    `<pre class="logline">${escapeHtml(f.first.text)}</pre>`,
    "</li>",
  ].join("\n");
}

function findingsSection(title: string, items: readonly Finding[], where: (s: string, l: number) => string): string {
  if (items.length === 0) return "";
  return `<section><h2>${escapeHtml(title)}</h2><ul class="findings">${items.map((f) => findingItem(f, where)).join("")}</ul></section>`;
}

function referencesSection(report: Report): string {
  const refs = report.references.filter((r) => /^https?:\/\//.test(r.url));
  if (refs.length === 0) return "";
  const items = refs.map((r) => `<li><a href="${escapeHtml(r.url)}">${escapeHtml(r.title)}</a></li>`);
  return `<section><h2>References</h2><ul>${items.join("")}</ul></section>`;
}

function inputsSection(report: Report): string {
  const sources = report.inputs.sources.map((s) => `${s.name} (${s.lines} lines, ${s.bytes} bytes)`);
  const rows: [string, string][] = [["inputs", list(sources)]];
  if (report.fingerprint) rows.push(["fingerprint", `<code>${escapeHtml(report.fingerprint.value)}</code>`]);
  rows.push(["faultline", escapeHtml(report.faultline_version)]);
  return `<section class="muted">${definitionList(rows)}</section>`;
}

/** The whole report page. */
export function renderReportHtml(report: Report, opts: RenderOptions): string {
  const where = opts.where ?? defaultWhere;
  const parts = [
    `<h1 class="verdict ${escapeHtml(report.verdict)}">${escapeHtml(VERDICT_HEADLINE[report.verdict])}</h1>`,
    `<p class="summary">${escapeHtml(report.summary)}</p>`,
  ];
  if (opts.origin !== undefined) parts.push(`<p class="muted">Diagnosis of ${escapeHtml(opts.origin)}</p>`);
  if (report.root) {
    parts.push(rootSection(report.root, where), decisionSection(report), actionSection(report), fixSection(report));
  }
  parts.push(
    findingsSection("Collateral (not the cause)", report.collateral, where),
    findingsSection("Other findings", report.findings, where),
    referencesSection(report),
    inputsSection(report),
  );
  return page(`faultline: ${report.summary}`, parts.filter((p) => p !== "").join("\n"), opts);
}
