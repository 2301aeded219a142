// What the WebAssembly tests share: where the builds are, the native
// command, the golden jobs, and chunkings of a log.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..', '..');
// The WebAssembly build (bindings/wasm/build.sh) and the native one to compare with.
const WASM_DIR = path.resolve(process.env.FAULTLINE_WASM_DIR || path.join(ROOT, 'build-wasm', 'bindings', 'wasm'));
const NATIVE_BIN = path.resolve(process.env.FAULTLINE_BIN || path.join(ROOT, 'build', 'faultline'));
const PACK = path.resolve(process.env.FAULTLINE_PACK || path.join(ROOT, 'build', 'default.flpack'));
const SHARED = path.resolve(process.env.FAULTLINE_SHARED_DIR || path.join(ROOT, '..', 'shared'));

const FaultlineWasm = require(path.join(WASM_DIR, 'faultline-api.js'));

let loaded = null;
/** The module and the pack, loaded once per test file. */
function faultline() {
  if (!loaded)
    loaded = FaultlineWasm.load(require(path.join(WASM_DIR, 'faultline-wasm.js'))).then((fl) => ({
      fl,
      pack: fl.openPack(fs.readFileSync(PACK)),
    }));
  return loaded;
}

/**
 * The native command's report of `inputs` (paths relative to the repository,
 * as the golden tests give them) with the same pack: {json, text} as Buffers.
 */
function nativeReports(inputs) {
  const run = (format) => {
    const p = spawnSync(NATIVE_BIN, ['diagnose', ...format, '--pack', PACK, '--', ...inputs], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1' },
      maxBuffer: 64 << 20,
    });
    // 0: a failure was found, 1: none; anything else is an error.
    if (p.status !== 0 && p.status !== 1)
      throw new Error(`faultline diagnose ${inputs.join(' ')}: exit ${p.status}: ${p.stderr}`);
    return p.stdout;
  };
  return { json: run(['--json']), text: run([]) };
}

/**
 * The files the native command reads for `input` (a file, or a directory
 * whose log files it reads, sorted by name), as paths relative to ROOT.
 */
function sourcesOf(fl, input) {
  const abs = path.join(ROOT, input);
  if (!fs.statSync(abs).isDirectory()) return [input];
  const found = [];
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && fl.isLogFileName(e.name)) found.push(path.relative(ROOT, p));
    }
  };
  walk(abs);
  // std::sort of std::string: byte order.
  return found.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

/** Every golden job of tests/golden (golden_test.py and the others), plus ../shared's healthy logs. */
function goldenJobs() {
  const jobs = [];
  const logsIn = (dir) =>
    fs
      .readdirSync(path.join(ROOT, dir))
      .filter((f) => f.endsWith('.log'))
      .sort()
      .map((f) => path.join(dir, f));
  for (const dir of ['tests/golden/eval', 'tests/golden/corpus', 'tests/golden/healthy', 'tests/golden/context'])
    jobs.push(...logsIn(dir).map((f) => [f]));
  for (const base of ['tests/golden/multirank', 'tests/golden/tie'])
    for (const d of fs.readdirSync(path.join(ROOT, base)).sort())
      if (fs.statSync(path.join(ROOT, base, d)).isDirectory()) jobs.push([path.join(base, d)]);
  const shared = path.join(SHARED, 'corpus', 'healthy');
  if (fs.existsSync(shared))
    for (const f of fs.readdirSync(shared).sort())
      if (f.endsWith('.log')) jobs.push([path.relative(ROOT, path.join(shared, f))]);
  return jobs;
}

/** A seeded generator (mulberry32): the same chunking on every run. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Chunk sizes from one byte to beyond the API's 1 MiB scratch buffer (which
// feed() must then split).
const SIZES = [1, 2, 3, 7, 64, 255, 4096, 65537, 1 << 20, (1 << 20) + 3, 3 << 20];

/**
 * Cuts `bytes` into chunks of varied sizes, and also just after the first
 * byte of some multi-byte UTF-8 sequences and inside some "\r\n": the
 * library must see the same lines whatever the cuts.
 * Returns {chunks, cutsInUtf8, cutsInLines}.
 */
function chunkings(bytes, seed) {
  const next = rng(seed);
  const chunks = [];
  let cutsInUtf8 = 0, cutsInLines = 0;
  let at = 0;
  while (at < bytes.length) {
    let end = Math.min(bytes.length, at + SIZES[Math.floor(next() * SIZES.length)]);
    // One chunk in two ends inside the next UTF-8 sequence or CRLF, if one
    // comes within 1 MiB (most logs are nearly all ASCII).
    if (next() < 0.5) {
      for (let i = at; i < Math.min(bytes.length - 1, at + (1 << 20)); i++) {
        const b = bytes[i];
        if (b >= 0xc2 && b <= 0xf4) {
          end = i + 1;
          break;
        }
        if (b === 0x0d && bytes[i + 1] === 0x0a) {
          end = i + 1;
          break;
        }
      }
    }
    if (end < bytes.length) {
      const last = bytes[end - 1];
      if (last >= 0xc2 && last <= 0xf4) cutsInUtf8++;
      if (last !== 0x0a) cutsInLines++;
    }
    chunks.push(bytes.subarray(at, end));
    at = end;
  }
  return { chunks, cutsInUtf8, cutsInLines };
}

/** Diagnoses `sources` with the WebAssembly runtime, chunked; returns {json, text} as Buffers. */
function wasmReports(pack, sources, seed) {
  const d = pack.diagnoser();
  const stats = { cutsInUtf8: 0, cutsInLines: 0 };
  try {
    for (const source of sources) {
      const bytes = fs.readFileSync(path.join(ROOT, source));
      const c = chunkings(bytes, seed++);
      stats.cutsInUtf8 += c.cutsInUtf8;
      stats.cutsInLines += c.cutsInLines;
      d.beginSource(source);
      for (const chunk of c.chunks) d.feed(chunk);
      d.endSource();
    }
    return { json: Buffer.from(d.reportBytes('json')), text: Buffer.from(d.reportBytes('text')), stats };
  } finally {
    d.free();
  }
}

/** Where two buffers first differ, with some context, for a readable failure. */
function firstDifference(a, b) {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const around = (buf) => JSON.stringify(buf.subarray(Math.max(0, i - 80), i + 80).toString('utf8'));
  return `byte ${i} (lengths ${a.length}, ${b.length}):\n  native ${around(a)}\n  wasm   ${around(b)}`;
}

module.exports = {
  ROOT,
  WASM_DIR,
  NATIVE_BIN,
  PACK,
  FaultlineWasm,
  faultline,
  nativeReports,
  sourcesOf,
  goldenJobs,
  chunkings,
  wasmReports,
  firstDifference,
  rng,
};
