// Untrusted input through the WebAssembly runtime: damaged packs are
// refused with the library's message (and the module keeps working), logs
// of NUL bytes and invalid UTF-8 get the native report, freed handles
// refuse to be used.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const h = require('./harness.js');

// A short real failure, to show that the module still diagnoses after a refusal.
const OOM_LOG = 'tests/golden/eval/A001.log';

function diagnoses(pack) {
  const d = pack.diagnoser();
  try {
    d.beginSource(OOM_LOG);
    d.feed(fs.readFileSync(path.join(h.ROOT, OOM_LOG)));
    return d.result().verdict;
  } finally {
    d.free();
  }
}

test('damaged packs are refused with an Error, never a crash', async () => {
  const { fl } = await h.faultline();
  const good = fs.readFileSync(h.PACK);
  const flipped = Buffer.from(good);
  flipped[Math.floor(flipped.length / 2)] ^= 0x40; // content no longer matches the header's hash
  const cases = [
    ['empty', new Uint8Array(0), /not a faultline pack/],
    ['random bytes', Uint8Array.from({ length: 4096 }, (_, i) => (i * 7919) & 0xff), /magic|not a faultline pack/i],
    ['truncated to half', good.subarray(0, good.length >> 1), /length mismatch/],
    ['truncated to its header', good.subarray(0, 64), /length mismatch/],
    ['one bit flipped in the middle', flipped, /hash mismatch/],
  ];
  for (const [what, bytes, message] of cases) {
    assert.throws(() => fl.openPack(bytes), message, what);
  }
  assert.throws(() => fl.openPack('not bytes'), TypeError);
  // The module is intact: the good pack opens and diagnoses.
  const pack = fl.openPack(good);
  try {
    assert.equal(diagnoses(pack), 'failure');
  } finally {
    pack.free();
  }
});

test('the WebAssembly build embeds no default pack and says so', async () => {
  const { fl } = await h.faultline();
  const m = fl.module;
  const out = m._malloc(4 + 256);
  try {
    const st = m._fl_pack_open_default(0, out, out + 4, 256);
    assert.equal(st, -3); // FL_E_IO
    assert.equal(m.HEAPU32[out >>> 2], 0);
    assert.match(m.UTF8ToString(out + 4), /embeds no default pack/);
  } finally {
    m._free(out);
  }
});

test('NUL bytes and invalid UTF-8 in a log give the native report', async () => {
  const { pack } = await h.faultline();
  const hostile = Buffer.concat([
    Buffer.from('[rank0]: step 1 loss 2.3\n'),
    Buffer.from([0, 0, 0, 0x0a]), // a line of NULs
    Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xe2, 0x82, 0x0a]), // invalid, and a sequence cut by the line end
    Buffer.from([0xf0, 0x9f, 0x92, 0x0a, 0xed, 0xa0, 0x80, 0x0a, 0xc0, 0xaf, 0x0a]), // truncated, surrogate, overlong
    Buffer.from('[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\xff\x00 tail\n', 'latin1'),
    Buffer.from('\x1b[31m[rank3]: \x00\x00 RuntimeError: CUDA error: an illegal memory access was encountered\x1b[0m\r\n'),
    Buffer.alloc(70000, 0x00), // a line of 70000 NULs, longer than the matcher's line limit
    Buffer.from('\nlast line without a break \xc3', 'latin1'),
  ]);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'faultline-wasm-'));
  const file = path.join(tmp, 'rank3.log');
  fs.writeFileSync(file, hostile);
  try {
    const native = h.nativeReports([file]);
    for (const seed of [1, 2, 3]) {
      const d = pack.diagnoser();
      try {
        d.beginSource(file);
        for (const chunk of h.chunkings(hostile, seed).chunks) d.feed(chunk);
        d.endSource();
        const json = Buffer.from(d.reportBytes('json'));
        assert.ok(json.equals(native.json), `JSON differs at ${h.firstDifference(native.json, json)}`);
        assert.ok(Buffer.from(d.reportBytes('text')).equals(native.text), 'text reports differ');
        // Whatever the log's bytes, the JSON report is valid JSON.
        assert.equal(JSON.parse(d.report('json')).schema, 'faultline.report/2');
      } finally {
        d.free();
      }
    }
  } finally {
    fs.rmSync(tmp, { recursive: true });
  }
});

test('freed handles refuse to be used; a pack outlives its diagnosers safely', async () => {
  const { fl } = await h.faultline();
  const pack = fl.openPack(fs.readFileSync(h.PACK));
  const d = pack.diagnoser();
  pack.free(); // the diagnoser holds the pack (and the JS side its bytes)
  assert.throws(() => pack.entries(), /freed/);
  assert.throws(() => pack.diagnoser(), /freed/);
  d.beginSource(OOM_LOG);
  d.feed(fs.readFileSync(path.join(h.ROOT, OOM_LOG)));
  assert.equal(d.result().verdict, 'failure');
  d.free();
  d.free(); // twice is a no-op
  assert.throws(() => d.feed(new Uint8Array(1)), /freed/);
  assert.throws(() => d.report('json'), /freed/);
});

test('bad arguments are errors, not undefined behaviour', async () => {
  const { pack } = await h.faultline();
  assert.throws(() => pack.entryPage('no-such-entry'), /no entry/);
  assert.throws(() => pack.entryPage(pack.entryCount), /no entry/);
  assert.throws(() => pack.entryPage(0, 'html'), /unknown page format/);
  assert.throws(() => pack.diagnoser({ maxLineBytes: -1 }), RangeError);
  const d = pack.diagnoser();
  try {
    assert.throws(() => d.report('xml'), /unknown report format/);
    assert.throws(() => d.feed('text, not bytes'), TypeError);
  } finally {
    d.free();
  }
});
