// Reports for the tests, written from the schema (libcore/report/report.schema.json),
// and a check that HTML holds only the markup the renderers write.

import * as path from "node:path";
import type { Finding, Report } from "../src/report";

/** The repository's root, from out/test/ (compiled) or test/. */
export const REPO_ROOT = path.resolve(__dirname, __dirname.includes(`${path.sep}out${path.sep}`) ? "../../../.." : "../../..");

export const HOSTILE = {
  script: '<script>alert("pwned")</script>',
  attribute: '"><img src=x onerror=alert(1)>',
  ansi: "\u001b[31mred\u001b[0m \u001b]8;;https://evil.example\u0007link\u001b]8;;\u0007",
  controls: "bell\u0007 nul\u0000 c1\u009b31m bidi\u202eeman.exe",
};

export function finding(id: string, text: string): Finding {
  return {
    id,
    title: `title of ${id}`,
    type: "nccl_timeout",
    severity: "high",
    role: "collateral",
    ranks: [0, 1, 2, 4],
    more_ranks: 0,
    count: 4,
    reason: "collateral: printed by ranks waiting for the failed rank",
    first: { rank: 0, host: null, source: "node-a.log", line: 13, time: null, text },
  };
}

/** A failure on rank 5 whose every free-text field carries hostile text. */
export function hostileReport(): Report {
  const all = Object.values(HOSTILE).join(" | ");
  return {
    schema: "faultline.report/2",
    verdict: "failure",
    summary: `failure: cuda-out-of-memory on rank 5 ${HOSTILE.script}`,
    root: {
      id: "cuda-out-of-memory",
      title: `CUDA out of memory ${HOSTILE.attribute}`,
      category: "memory",
      type: "cuda_oom",
      severity: "high",
      role: "cause",
      rank: 5,
      rank_evidence: { source: "printed-root-error", detail: HOSTILE.script, certainty: "high" },
      ranks: [5],
      host: `node-b${HOSTILE.attribute}`,
      source: `node-b.log${HOSTILE.controls}`,
      line: 16,
      time: null,
      text: `[rank5]: torch.OutOfMemoryError ${all}`,
      fields: { requested: `4.35 GiB${HOSTILE.ansi}`, [`k${HOSTILE.script}`]: "1" },
    },
    decided_by: "nccl-progress",
    confidence: { score: 0.99, level: "high", reasons: [HOSTILE.script] },
    collateral: [finding("nccl-watchdog-timeout", `[rank0]: watchdog ${all}`)],
    findings: [],
    missing_evidence: [HOSTILE.attribute],
    action: { name: "fix-config", retry: false, exclude_hosts: [HOSTILE.controls], advice: HOSTILE.ansi },
    fix: {
      steps: [HOSTILE.script],
      commands: [{ run: `nvidia-smi -i 1 && echo '${HOSTILE.script}'`, explain: HOSTILE.attribute }],
    },
    verify: [{ run: `grep -c "CUDA out of memory" "$LOG_FILE" ${HOSTILE.ansi}`, expect: HOSTILE.controls }],
    references: [
      { title: HOSTILE.script, url: "https://pytorch.org/docs/stable/notes/cuda.html" },
      { title: "not a web link", url: "javascript:alert(1)" },
    ],
    fingerprint: { algorithm: "faultline-fp/1", value: "fp1:e534851822633fa3" },
    inputs: { sources: [{ name: `node-b.log${HOSTILE.script}`, bytes: 10, lines: 2 }], bytes: 10, lines: 2 },
    faultline_version: "0.1.0",
  };
}

const ALLOWED_TAGS = new Set([
  "html", "head", "meta", "link", "title", "body", "h1", "h2", "h3", "h4", "p", "section", "dl", "dt", "dd",
  "code", "pre", "ul", "ol", "li", "a", "strong", "span", "div", "br",
]);

/**
 * Every "<" of the page opens or closes one of the renderers' own tags, every
 * attribute is one they write, every link goes to an allowed place, and no
 * control character is left. Returns the problems found.
 */
export function markupProblems(html: string, styleUri: string): string[] {
  const problems: string[] = [];
  const body = html.replace(/^<!DOCTYPE html>\n/, "");
  for (const m of body.matchAll(/<(\/?)([^\s>/]*)([^>]*)>/g)) {
    const [tag, , name = "", attrs = ""] = m;
    if (!ALLOWED_TAGS.has(name)) problems.push(`tag ${tag}`);
    for (const a of attrs.matchAll(/\s*([^=\s]+)(?:="([^"]*)")?/g)) {
      const [, attr = "", value = ""] = a;
      if (!["class", "href", "title", "lang", "charset", "http-equiv", "content", "name", "rel"].includes(attr)) {
        problems.push(`attribute ${attr} in ${tag}`);
      }
      if (attr === "href" && !/^(command:faultline\.(showEntry|copyText)\?|https?:\/\/)/.test(value) && value !== styleUri) {
        problems.push(`link ${value}`);
      }
    }
  }
  // A "<" that did not start a tag above would be text the browser may read as markup.
  const stray = body.replace(/<\/?[a-z0-9]+(?:\s[^>]*)?>/g, "");
  if (stray.includes("<")) problems.push(`stray < in ${stray.slice(stray.indexOf("<"), stray.indexOf("<") + 60)}`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/.test(html)) problems.push("a control character");
  return problems;
}
