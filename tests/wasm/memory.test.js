// A 200 MB log streamed through FaultlineWasm.diagnoseStream keeps the wasm
// heap bounded: the log is never held, only the chunk being fed (copied into
// the diagnoser's 1 MiB scratch buffer) and the diagnoser's bounded evidence.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const h = require('./harness.js');

const MiB = 1 << 20;
const TOTAL = 200 * 1000 * 1000;

// A job of 512 ranks on 64 hosts, 8 a host: real failure lines from every
// rank, lines longer than the matcher's 64 KiB limit, and healthy filler,
// made chunk by chunk as they are read.
function generatedLog(total, chunkBytes) {
  const failing = fs
    .readFileSync(path.join(h.ROOT, 'tests/golden/multirank/oom-rank5/node-b.log'), 'latin1')
    .split('\n')
    .filter((l) => l.length > 0);
  const next = h.rng(7);
  let produced = 0, line = 0;
  return new ReadableStream({
    pull(controller) {
      if (produced >= total) return controller.close();
      const parts = [];
      let size = 0;
      while (size < chunkBytes) {
        const r = next();
        let text;
        if (r < 0.01) text = `node-${(line % 512) >> 3}: [rank${line % 512}]: ${failing[line % failing.length]}\n`;
        else if (r < 0.011) text = 'x'.repeat(100000) + ' CUDA error: an illegal memory access was encountered\n';
        else text = `iteration ${line} | loss ${(next() * 10).toFixed(4)} | lr 3.0e-4 | tokens/s ${Math.floor(next() * 1e6)}\n`;
        parts.push(text);
        size += text.length;
        line++;
      }
      const chunk = Buffer.from(parts.join(''), 'latin1');
      produced += chunk.length;
      controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length));
    },
  });
}

test('a 200 MB stream is diagnosed with a bounded wasm heap', async (t) => {
  const { fl, pack } = await h.faultline();
  const heap = () => fl.module.HEAP8.length;
  // What the heap holds before the stream: the runtime, the pack copied in
  // once (15 MB for the default pack), its first diagnosis.
  const probe = pack.diagnoser();
  probe.beginSource('probe.log');
  probe.feed(fs.readFileSync(path.join(h.ROOT, 'tests/golden/multirank/oom-rank5/node-b.log')));
  probe.report('json');
  probe.free();
  const before = heap();
  let peak = before, done = 0, calls = 0, atTenth = 0;
  const report = await h.FaultlineWasm.diagnoseStream(pack, generatedLog(TOTAL, 4 * MiB + 17), {
    name: 'generated.log',
    totalBytes: TOTAL,
    onProgress(bytesDone, total) {
      assert.equal(total, TOTAL);
      assert.ok(bytesDone > done, 'progress moves forward');
      done = bytesDone;
      calls++;
      peak = Math.max(peak, heap());
      if (!atTenth && done >= TOTAL / 10) atTenth = heap();
    },
  });
  assert.ok(done >= TOTAL, `only ${done} bytes were fed`);
  assert.ok(calls > 40, 'progress was reported along the way');
  const json = JSON.parse(report.json);
  assert.equal(json.verdict, 'failure');
  assert.equal(json.root.type, 'cuda_oom');
  assert.match(report.text, /CUDA out of memory/);
  // Bounds. The feed copies at most 1 MiB at a time into the scratch buffer
  // and the diagnoser keeps counts and first occurrences per (entry, rank,
  // host), not lines (docs/GUARANTEES.md, "Memory"): what it keeps grows with
  // the job's 512 ranks, never with the 200 MB read. So: at most 8 MiB above
  // the heap before the stream (the scratch buffer, the scanner's line
  // buffers, evidence of 512 ranks), and none of it after the first tenth.
  assert.ok(peak - before <= 8 * MiB, `the heap grew by ${(peak - before) / MiB} MiB (from ${before / MiB} MiB)`);
  assert.equal(peak, atTenth, `the heap grew from ${atTenth / MiB} to ${peak / MiB} MiB after the first 20 MB`);
  t.diagnostic(`heap: ${before / MiB} MiB before the stream, ${peak / MiB} MiB at most`);
});
