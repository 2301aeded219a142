import * as assert from "node:assert/strict";
import { test } from "node:test";
import { OutputTail } from "../src/outputTail";

test("short output is kept whole", () => {
  const tail = new OutputTail(100);
  tail.append("line 1\n");
  tail.append("");
  tail.append("line 2\n");
  assert.equal(tail.text(), "line 1\nline 2\n");
  assert.equal(tail.truncated, false);
});

test("long output keeps its end, from a whole line, within the bound", () => {
  const tail = new OutputTail(64);
  const lines = Array.from({ length: 1000 }, (_, i) => `step ${i} loss 1.0\n`);
  for (const l of lines) tail.append(l);
  const text = tail.text();
  assert.equal(tail.truncated, true);
  assert.ok(text.length <= 64);
  assert.ok(text.endsWith("step 999 loss 1.0\n"));
  assert.ok(text.startsWith("step "), "starts at a line");
  assert.ok(lines.join("").endsWith(text));
});

test("a chunk longer than the bound keeps its last characters", () => {
  const tail = new OutputTail(10);
  tail.append("x".repeat(100) + "\n0123456789");
  assert.equal(tail.text(), "0123456789");
});
