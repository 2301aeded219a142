// The status bar's words for a verdict. Only an entry id (checked against the
// id pattern) and a rank number come from the report, so nothing from a log
// reaches the status bar, whose text interprets "$(icon)". Pure.

import { ENTRY_ID, type Report } from "./report";

export interface StatusVerdict {
  text: string;
  tooltip: string;
}

/** What the status bar knows: from a report, or from the server's diagnostics. */
export interface VerdictFacts {
  verdict: Report["verdict"];
  rootId: string | null;
  rank: number | null;
}

export function factsOfReport(report: Report): VerdictFacts {
  return { verdict: report.verdict, rootId: report.root?.id ?? null, rank: report.root?.rank ?? null };
}

/** A diagnostic as the status bar sees it; severity 0 is an error, as in vscode.DiagnosticSeverity. */
export interface DiagnosticFacts {
  source: string | undefined;
  severity: number;
  code: string | number | undefined;
}

/**
 * The verdict from the language server's diagnostics alone: its error
 * diagnostic is the root (the code is the entry id). Without one, no failure;
 * information diagnostics alone are collateral: inconclusive.
 */
export function factsOfDiagnostics(diagnostics: readonly DiagnosticFacts[]): VerdictFacts {
  const ours = diagnostics.filter((d) => d.source === "faultline");
  const root = ours.find((d) => d.severity === 0);
  if (root) return { verdict: "failure", rootId: typeof root.code === "string" ? root.code : null, rank: null };
  if (ours.length > 0) return { verdict: "inconclusive", rootId: null, rank: null };
  return { verdict: "no-failure", rootId: null, rank: null };
}

function describe(facts: VerdictFacts): string {
  const id = facts.rootId !== null && ENTRY_ID.test(facts.rootId) ? facts.rootId : "unknown failure";
  const rank = facts.rank !== null && Number.isInteger(facts.rank) && facts.rank >= 0 ? ` rank ${facts.rank}` : "";
  return `${id}${rank}`;
}

export function statusVerdict(facts: VerdictFacts): StatusVerdict {
  switch (facts.verdict) {
    case "failure":
      return { text: `$(error) faultline: ${describe(facts)}`, tooltip: "faultline: the initiating failure. Click for the report." };
    case "inconclusive":
      return {
        text: `$(warning) faultline: inconclusive${facts.rootId !== null ? `, ${describe(facts)}` : ""}`,
        tooltip: "faultline: only collateral in this log; the cause is in another rank's log. Click for the report.",
      };
    case "no-failure":
      return { text: "$(check) faultline: no failure", tooltip: "faultline found no failure. Click for the report." };
  }
}
