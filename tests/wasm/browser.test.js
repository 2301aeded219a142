// The WebAssembly runtime in a real browser, as a page on file:// uses it:
// classic <script>s (no modules, no fetch of local files) and the diagnose
// worker from a Blob URL (faultline-worker-source.js). A golden log dropped as
// a File gets the native report, byte for byte, on the page's thread and in
// the worker. Skipped where Chromium is not installed (CHROMIUM=path to choose).
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const h = require('./harness.js');
const chromium = require('./chromium.js');

const LOG = 'tests/golden/corpus/cuda_oom-pytorch-dgl-mlperf51-dell-rgat-oom-thread-then-nccl-timeout.log';

// The page: the module, the API and the worker's source as scripts beside it;
// the pack and the log as scripts too (a page on file:// cannot read files).
function writePage(dir) {
  for (const f of ['faultline-wasm.js', 'faultline-api.js', 'faultline-worker-source.js'])
    fs.copyFileSync(path.join(h.WASM_DIR, f), path.join(dir, f));
  const base64 = (p) => fs.readFileSync(p).toString('base64');
  fs.writeFileSync(
    path.join(dir, 'inputs.js'),
    `globalThis.PACK_BASE64 = "${base64(h.PACK)}";\nglobalThis.LOG_BASE64 = "${base64(path.join(h.ROOT, LOG))}";\n`
  );
  fs.writeFileSync(
    path.join(dir, 'page.html'),
    `<!doctype html><meta charset="utf-8"><title>faultline wasm</title>
<script src="faultline-wasm.js"></script>
<script src="faultline-api.js"></script>
<script src="faultline-worker-source.js"></script>
<script src="inputs.js"></script>
<script>
const bytesOf = (b64) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
// On the page's thread: the API directly.
async function diagnoseHere(name) {
  const fl = await FaultlineWasm.load();
  const pack = fl.openPack(bytesOf(PACK_BASE64));
  const report = await FaultlineWasm.diagnoseStream(pack, new Blob([bytesOf(LOG_BASE64)]).stream(), { name });
  pack.free();
  return report;
}
// In the worker, from a Blob URL: the way a page on file:// can make one.
function diagnoseInWorker(name) {
  const worker = new Worker(URL.createObjectURL(new Blob([FaultlineWorkerSource], { type: 'text/javascript' })));
  const progress = [];
  return new Promise((resolve) => {
    worker.onmessage = (e) => {
      if (e.data.type === 'progress') return progress.push([e.data.done, e.data.total]);
      worker.terminate();
      resolve({ ...e.data, progress });
    };
    worker.onerror = (e) => resolve({ type: 'error', message: String(e.message) });
    const file = new File([bytesOf(LOG_BASE64)], 'dropped.log');
    worker.postMessage({ type: 'diagnose', pack: bytesOf(PACK_BASE64).buffer, file, name });
  });
}
</script>`
  );
}

test('in Chromium from file://: classic scripts and the Blob worker give the native report', { skip: !chromium.available() && 'no Chromium' }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'faultline-wasm-page-'));
  const browser = await chromium.launch();
  try {
    writePage(dir);
    await browser.open(`file://${dir}/page.html`);
    for (let i = 0; i < 100 && !(await browser.evaluate("typeof diagnoseInWorker === 'function' && document.readyState === 'complete'")); i++)
      await new Promise((r) => setTimeout(r, 100));
    const native = h.nativeReports([LOG]);
    const here = await browser.evaluate(`diagnoseHere(${JSON.stringify(LOG)})`);
    assert.equal(here.json, native.json.toString('utf8'));
    assert.equal(here.text, native.text.toString('utf8'));
    const inWorker = await browser.evaluate(`diagnoseInWorker(${JSON.stringify(LOG)})`);
    assert.equal(inWorker.type, 'report', inWorker.message);
    assert.equal(inWorker.json, native.json.toString('utf8'));
    assert.equal(inWorker.text, native.text.toString('utf8'));
    const size = fs.statSync(path.join(h.ROOT, LOG)).size;
    assert.deepEqual(inWorker.progress[inWorker.progress.length - 1], [size, size]);
  } finally {
    await browser.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
