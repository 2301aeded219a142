import * as assert from "node:assert/strict";
import { test } from "node:test";
import { ReportError, asReport, parseReport } from "../src/report";
import { hostileReport } from "./fixtures";

test("a well-formed report is accepted", () => {
  const report = hostileReport();
  assert.equal(parseReport(JSON.stringify(report)).root?.id, "cuda-out-of-memory");
});

test("what is not a report is refused, naming the field", () => {
  const cases: [string, (r: Record<string, unknown>) => void, RegExp][] = [
    ["schema", (r) => (r.schema = "faultline.report/1"), /schema/],
    ["verdict", (r) => (r.verdict = "<b>"), /verdict/],
    ["root and verdict", (r) => (r.verdict = "no-failure"), /disagree/],
    ["root id", (r) => ((r.root as Record<string, unknown>).id = "$(bug)"), /root\.id/],
    ["rank", (r) => ((r.root as Record<string, unknown>).rank = "5"), /root\.rank/],
    ["collateral", (r) => (r.collateral = [{}]), /collateral\[0\]/],
    ["fix command", (r) => (r.fix = { steps: [], commands: [{ run: 1 }] }), /fix\.commands/],
  ];
  for (const [name, spoil, message] of cases) {
    const r = JSON.parse(JSON.stringify(hostileReport())) as Record<string, unknown>;
    spoil(r);
    assert.throws(() => asReport(r), (e: unknown) => e instanceof ReportError && message.test(e.message), name);
  }
  assert.throws(() => parseReport("faultline: error"), /no JSON report/);
  assert.throws(() => parseReport("[]"), ReportError);
});
