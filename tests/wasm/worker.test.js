// The diagnose worker as a page runs it from file://: one classic script made
// of faultline-wasm.js + faultline-api.js + diagnose-worker.js, evaluated in a
// context of its own whose only outside world is a worker's (self,
// postMessage, importScripts): no require, no process, no fs. Its reports
// must be the native command's.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const h = require('./harness.js');

function startWorker() {
  const source = ['faultline-wasm.js', 'faultline-api.js', 'diagnose-worker.js']
    .map((f) => fs.readFileSync(path.join(h.WASM_DIR, f), 'utf8'))
    .join('\n;\n');
  const received = [];
  let wake = null;
  const self = {
    location: { href: 'blob:null/7d1c4a52-worker' },
    postMessage(msg) {
      received.push(structuredClone(msg));
      if (wake) wake();
    },
  };
  const context = vm.createContext({
    self,
    importScripts() {}, // what makes Emscripten's loader take the worker path
    WebAssembly,
    TextEncoder,
    TextDecoder,
    atob,
    console,
    Date,
    setTimeout,
    clearTimeout,
  });
  self.self = self;
  vm.runInContext(source, context, { filename: 'faultline-worker-blob.js' });
  assert.equal(typeof context.self.onmessage, 'function', 'the worker listens');
  const send = (msg) => context.self.onmessage({ data: msg });
  // Resolves with the messages up to the next report or error.
  const until = async () => {
    for (;;) {
      const end = received.findIndex((m) => m.type === 'report' || m.type === 'error');
      if (end >= 0) return received.splice(0, end + 1);
      await new Promise((resolve) => (wake = resolve));
    }
  };
  return { send, until };
}

test('the concatenated worker diagnoses a Blob and text like the native command', async () => {
  const worker = startWorker();
  const packBytes = fs.readFileSync(h.PACK);
  const pack = packBytes.buffer.slice(packBytes.byteOffset, packBytes.byteOffset + packBytes.length);

  // A file: progress up to its size, then the native report.
  const input = 'tests/golden/corpus/cuda_oom-pytorch-dgl-mlperf51-dell-rgat-oom-thread-then-nccl-timeout.log';
  const bytes = fs.readFileSync(path.join(h.ROOT, input));
  worker.send({ type: 'diagnose', pack: pack.slice(0), file: new Blob([bytes]), name: input });
  let msgs = await worker.until();
  let last = msgs.pop();
  assert.equal(last.type, 'report', last.message);
  const native = h.nativeReports([input]);
  assert.equal(last.json, native.json.toString('utf8'));
  assert.equal(last.text, native.text.toString('utf8'));
  const progress = msgs.filter((m) => m.type === 'progress');
  assert.ok(progress.length >= 1);
  assert.deepEqual(progress[progress.length - 1], { type: 'progress', done: bytes.length, total: bytes.length });

  // Pasted text, with the pack left out (the cached one is used), as pasted
  // into a page: the same report as the file holding those bytes.
  const small = 'tests/golden/eval/A001.log';
  worker.send({ type: 'diagnose-text', text: fs.readFileSync(path.join(h.ROOT, small), 'utf8'), name: small });
  msgs = await worker.until();
  last = msgs.pop();
  assert.equal(last.type, 'report', last.message);
  assert.equal(last.json, h.nativeReports([small]).json.toString('utf8'));

  // A damaged pack: an error message, and the worker goes on.
  worker.send({ type: 'diagnose-text', pack: new ArrayBuffer(16), text: 'x\n', name: 'x.log' });
  last = (await worker.until()).pop();
  assert.equal(last.type, 'error');
  assert.match(last.message, /cannot open the pack/);
  worker.send({ type: 'nonsense' });
  last = (await worker.until()).pop();
  assert.equal(last.type, 'error');
  assert.match(last.message, /unknown message type/);
});

test('text with characters outside the BMP is cut between chunks without damage', async () => {
  const worker = startWorker();
  const packBytes = fs.readFileSync(h.PACK);
  // 'a', then over 1 Mi UTF-16 units of emoji (surrogate pairs at odd
  // offsets, so that a chunk end falls inside one), then a real failure: the
  // worker's text chunks of 1 Mi units must not split a pair.
  const text = 'a' + '\u{1F525}'.repeat(700001) + '\n' + fs.readFileSync(path.join(h.ROOT, 'tests/golden/eval/A001.log'), 'utf8');
  const tmp = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'faultline-wasm-'));
  const file = path.join(tmp, 'pasted.log');
  fs.writeFileSync(file, text);
  try {
    worker.send({ type: 'diagnose-text', pack: packBytes.buffer.slice(0), text, name: file });
    const msgs = await worker.until();
    const last = msgs.pop();
    assert.equal(last.type, 'report', last.message);
    assert.equal(last.json, h.nativeReports([file]).json.toString('utf8'));
    const total = Buffer.byteLength(text, 'utf8');
    assert.deepEqual(msgs.filter((m) => m.type === 'progress').pop(), { type: 'progress', done: total, total });
  } finally {
    fs.rmSync(tmp, { recursive: true });
  }
});
