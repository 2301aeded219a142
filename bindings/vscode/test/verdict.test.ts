import * as assert from "node:assert/strict";
import { test } from "node:test";
import { factsOfDiagnostics, factsOfReport, statusVerdict } from "../src/verdict";
import { hostileReport } from "./fixtures";

test("a failure names the root entry and its rank", () => {
  assert.equal(statusVerdict(factsOfReport(hostileReport())).text, "$(error) faultline: cuda-out-of-memory rank 5");
});

test("no failure and inconclusive", () => {
  assert.equal(statusVerdict({ verdict: "no-failure", rootId: null, rank: null }).text, "$(check) faultline: no failure");
  const inconclusive = statusVerdict({ verdict: "inconclusive", rootId: "nccl-watchdog-timeout", rank: 3 });
  assert.equal(inconclusive.text, "$(warning) faultline: inconclusive, nccl-watchdog-timeout rank 3");
});

test("text that is not an entry id never reaches the status bar", () => {
  const shown = statusVerdict({ verdict: "failure", rootId: "$(bug) <b>x</b>", rank: -1 });
  assert.equal(shown.text, "$(error) faultline: unknown failure");
});

test("the server's diagnostics: an error is the root, information alone is collateral", () => {
  const root = { source: "faultline", severity: 0, code: "cuda-out-of-memory" };
  const collateral = { source: "faultline", severity: 2, code: "nccl-watchdog-timeout" };
  const other = { source: "eslint", severity: 0, code: "no-undef" };
  assert.deepEqual(factsOfDiagnostics([collateral, root, other]), { verdict: "failure", rootId: "cuda-out-of-memory", rank: null });
  assert.equal(factsOfDiagnostics([collateral]).verdict, "inconclusive");
  assert.equal(factsOfDiagnostics([other]).verdict, "no-failure");
});
