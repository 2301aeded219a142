// The WebAssembly runtime gives the native command's reports, byte for byte,
// on every golden log (tests/golden, and ../shared's healthy logs when that
// folder exists), fed in chunks of 1 byte to 3 MiB cut inside lines and
// inside UTF-8 sequences.
//   node --test tests/wasm/   (FAULTLINE_WASM_DIR, FAULTLINE_BIN, FAULTLINE_PACK: see harness.js)
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const h = require('./harness.js');

test('native and WebAssembly reports are byte-identical on every golden log', async (t) => {
  const { fl, pack } = await h.faultline();
  const jobs = h.goldenJobs();
  // golden_test.py's folders must all be here: eval, corpus, healthy, multirank.
  assert.ok(jobs.length >= 53 + 19 + 7 + 5, `only ${jobs.length} golden jobs found`);
  let seed = 1;
  let cutsInUtf8 = 0, cutsInLines = 0, failures = 0;
  for (const inputs of jobs) {
    await t.test(inputs.join(' '), () => {
      const sources = inputs.flatMap((input) => h.sourcesOf(fl, input));
      const native = h.nativeReports(inputs);
      const wasm = h.wasmReports(pack, sources, seed);
      seed += sources.length;
      cutsInUtf8 += wasm.stats.cutsInUtf8;
      cutsInLines += wasm.stats.cutsInLines;
      // Not an empty comparison: the native report is a real one.
      assert.equal(JSON.parse(native.json.toString('utf8')).schema, 'faultline.report/2');
      if (JSON.parse(native.json.toString('utf8')).verdict !== 'no-failure') failures++;
      assert.ok(wasm.json.equals(native.json), `JSON reports differ at ${h.firstDifference(native.json, wasm.json)}`);
      assert.ok(wasm.text.equals(native.text), `text reports differ at ${h.firstDifference(native.text, wasm.text)}`);
    });
  }
  t.diagnostic(`${cutsInUtf8} cuts inside UTF-8 sequences, ${cutsInLines} inside lines`);
  // The chunkings did what they are for.
  assert.ok(cutsInUtf8 > 10, `only ${cutsInUtf8} cuts inside UTF-8 sequences`);
  assert.ok(cutsInLines > jobs.length, `only ${cutsInLines} cuts inside lines for ${jobs.length} jobs`);
  // The jobs include failures, not only healthy logs (the golden labels say 72 or more).
  assert.ok(failures >= 53 + 19, `only ${failures} failure reports`);
});

test('a log fed in one call larger than the scratch buffer gives the native report', async () => {
  const { pack } = await h.faultline();
  const fs = require('node:fs');
  const os = require('node:os');
  const path = require('node:path');
  // Every failing log of the corpus in one file: several MiB in one feed()
  // call, which the API splits at its 1 MiB scratch buffer.
  const dir = path.join(h.ROOT, 'tests/golden/corpus');
  const bytes = Buffer.concat(
    fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.log'))
      .sort()
      .map((f) => fs.readFileSync(path.join(dir, f)))
  );
  assert.ok(bytes.length > 3 * h.FaultlineWasm.SCRATCH_BYTES, `the corpus holds only ${bytes.length} bytes`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'faultline-wasm-'));
  const file = path.join(tmp, 'corpus.log');
  fs.writeFileSync(file, bytes);
  const d = pack.diagnoser();
  try {
    d.beginSource(file);
    d.feed(bytes);
    d.endSource();
    const native = h.nativeReports([file]);
    assert.equal(d.report('json'), native.json.toString('utf8'));
    assert.equal(d.report('text'), native.text.toString('utf8'));
  } finally {
    d.free();
    fs.rmSync(tmp, { recursive: true });
  }
});
