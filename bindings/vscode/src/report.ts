// The diagnosis report, schema faultline.report/2 (libcore/report/REPORT.md,
// report.schema.json): the fields this extension reads, and a parser that
// checks them before anything is shown. Pure (no vscode import).

export type Verdict = "failure" | "inconclusive" | "no-failure";

export interface RankEvidence {
  source: string;
  detail: string;
  certainty: string;
}

export interface Root {
  id: string;
  title: string;
  category: string;
  type: string;
  severity: string;
  role: string;
  rank: number | null;
  rank_evidence: RankEvidence | null;
  ranks: number[];
  host: string | null;
  source: string;
  line: number;
  time: string | null;
  text: string;
  fields: Record<string, string>;
  exception?: string | null;
}

export interface FirstLine {
  rank: number | null;
  host: string | null;
  source: string;
  line: number;
  time: string | null;
  text: string;
}

export interface Finding {
  id: string;
  title: string;
  type: string;
  severity: string;
  role: string;
  ranks: number[];
  more_ranks: number;
  count: number;
  reason: string;
  first: FirstLine;
}

export interface Command {
  run: string;
  explain: string;
}

export interface Report {
  schema: string;
  verdict: Verdict;
  summary: string;
  root: Root | null;
  decided_by: string;
  confidence: { score: number; level: string; reasons: string[] };
  collateral: Finding[];
  findings: Finding[];
  missing_evidence: string[];
  action: { name: string; retry: boolean; exclude_hosts: string[]; advice: string };
  fix: { steps: string[]; commands: Command[] };
  verify: { run: string; expect: string }[];
  references: { title: string; url: string }[];
  fingerprint: { algorithm: string; value: string } | null;
  inputs: { sources: { name: string; bytes: number; lines: number }[]; bytes: number; lines: number };
  faultline_version: string;
}

export const REPORT_SCHEMA = "faultline.report/2";

/** Entry ids are the only pack text that goes into a command URI or an argument. */
export const ENTRY_ID = /^(unknown|[a-z0-9]+(-[a-z0-9]+)*)$/;

export class ReportError extends Error {}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function need(ok: boolean, what: string): void {
  if (!ok) throw new ReportError(`not a ${REPORT_SCHEMA} report: ${what}`);
}

function strings(v: unknown): boolean {
  return Array.isArray(v) && v.every((s) => typeof s === "string");
}

function integers(v: unknown): boolean {
  return Array.isArray(v) && v.every((n) => Number.isInteger(n));
}

function rankOrNull(v: unknown): boolean {
  return v === null || Number.isInteger(v);
}

function checkFinding(f: unknown, where: string): void {
  need(isObject(f), where);
  const o = f as Json;
  for (const k of ["id", "title", "type", "severity", "role", "reason"]) need(typeof o[k] === "string", `${where}.${k}`);
  need(integers(o.ranks), `${where}.ranks`);
  need(Number.isInteger(o.count) && Number.isInteger(o.more_ranks), `${where}.count`);
  need(isObject(o.first), `${where}.first`);
  const first = o.first as Json;
  need(typeof first.text === "string" && typeof first.source === "string", `${where}.first.text`);
  need(Number.isInteger(first.line) && rankOrNull(first.rank), `${where}.first.line`);
}

function checkRoot(r: unknown): void {
  if (r === null) return;
  need(isObject(r), "root");
  const o = r as Json;
  need(typeof o.id === "string" && ENTRY_ID.test(o.id), "root.id");
  for (const k of ["title", "category", "type", "severity", "role", "source", "text"]) {
    need(typeof o[k] === "string", `root.${k}`);
  }
  need(rankOrNull(o.rank) && integers(o.ranks), "root.rank");
  need(o.host === null || typeof o.host === "string", "root.host");
  need(Number.isInteger(o.line), "root.line");
  need(o.rank_evidence === null || isObject(o.rank_evidence), "root.rank_evidence");
  need(isObject(o.fields) && Object.values(o.fields).every((v) => typeof v === "string"), "root.fields");
}

/**
 * Checks that a parsed JSON value is a report with the fields this extension
 * reads, of the right types (the schema allows more; those are ignored).
 * Throws ReportError naming the first field that is wrong.
 */
export function asReport(value: unknown): Report {
  need(isObject(value), "not an object");
  const o = value as Json;
  need(o.schema === REPORT_SCHEMA, "schema");
  need(o.verdict === "failure" || o.verdict === "inconclusive" || o.verdict === "no-failure", "verdict");
  need(typeof o.summary === "string" && typeof o.decided_by === "string", "summary");
  need((o.verdict === "no-failure") === (o.root === null), "root and verdict disagree");
  checkRoot(o.root);
  const c = o.confidence;
  need(isObject(c) && typeof c.score === "number" && typeof c.level === "string" && strings(c.reasons), "confidence");
  for (const list of ["collateral", "findings"]) {
    const items = o[list];
    need(Array.isArray(items), list);
    (items as unknown[]).forEach((f, i) => {
      checkFinding(f, `${list}[${i}]`);
    });
  }
  need(strings(o.missing_evidence), "missing_evidence");
  const a = o.action;
  need(isObject(a) && typeof a.name === "string" && typeof a.advice === "string" && strings(a.exclude_hosts), "action");
  const fix = o.fix;
  need(isObject(fix) && strings(fix.steps) && Array.isArray(fix.commands), "fix");
  for (const cmd of (fix as Json).commands as unknown[]) {
    need(isObject(cmd) && typeof cmd.run === "string" && typeof cmd.explain === "string", "fix.commands");
  }
  need(Array.isArray(o.verify), "verify");
  for (const v of o.verify as unknown[]) {
    need(isObject(v) && typeof v.run === "string" && typeof v.expect === "string", "verify");
  }
  need(Array.isArray(o.references), "references");
  for (const ref of o.references as unknown[]) {
    need(isObject(ref) && typeof ref.title === "string" && typeof ref.url === "string", "references");
  }
  need(o.fingerprint === null || isObject(o.fingerprint), "fingerprint");
  need(isObject(o.inputs) && Array.isArray(o.inputs.sources), "inputs");
  need(typeof o.faultline_version === "string", "faultline_version");
  return value as Report;
}

/** Parses faultline's JSON output into a checked report. */
export function parseReport(json: string): Report {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (e) {
    throw new ReportError(`faultline printed no JSON report (${e instanceof Error ? e.message : String(e)})`);
  }
  return asReport(value);
}
