#!/usr/bin/env node
// Diagnosis throughput of the WebAssembly runtime (Node) beside the native
// one, measured in the same run on the same bytes:
//   node bench/wasm/throughput.js [--mib N] [--runs N]
// Each corpus (../shared/corpus/healthy and failing; tests/golden/healthy when
// ../shared is missing) is concatenated and repeated to N MiB (default 64)
// into one temporary file, which is diagnosed as one source:
// - WebAssembly: a diagnoser fed 1 MiB chunks (what File.stream() gives the
//   worker, or larger), then the JSON report; timed in-process.
// - native: `faultline diagnose --jobs 1 --json` on the file, less the time
//   of the same command on an empty file (start-up and pack open), so both
//   figures are of the diagnosis itself.
// Best of --runs (default 3) for each. Environment: FAULTLINE_WASM_DIR,
// FAULTLINE_BIN, FAULTLINE_PACK, FAULTLINE_SHARED_DIR (as tests/wasm).
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..', '..');
const WASM_DIR = path.resolve(process.env.FAULTLINE_WASM_DIR || path.join(ROOT, 'build-wasm', 'bindings', 'wasm'));
const NATIVE_BIN = path.resolve(process.env.FAULTLINE_BIN || path.join(ROOT, 'build', 'faultline'));
const PACK = path.resolve(process.env.FAULTLINE_PACK || path.join(ROOT, 'build', 'default.flpack'));
const SHARED = path.resolve(process.env.FAULTLINE_SHARED_DIR || path.join(ROOT, '..', 'shared'));
const MiB = 1 << 20;

function option(name, fallback) {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

function corpora() {
  const list = [];
  for (const name of ['healthy', 'failing']) {
    const dir = path.join(SHARED, 'corpus', name);
    if (fs.existsSync(dir)) list.push({ name, dir });
  }
  if (!list.length) list.push({ name: 'healthy (tests/golden)', dir: path.join(ROOT, 'tests', 'golden', 'healthy') });
  return list;
}

// The corpus's logs, concatenated and repeated to `bytes`, in a file.
function corpusFile(dir, bytes, tmp, name) {
  const logs = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.log'))
    .sort()
    .map((f) => fs.readFileSync(path.join(dir, f)));
  const one = Buffer.concat(logs);
  const file = path.join(tmp, `${name.replace(/\W+/g, '-')}.log`);
  const fd = fs.openSync(file, 'w');
  let written = 0;
  while (written < bytes) {
    const part = one.subarray(0, Math.min(one.length, bytes - written));
    fs.writeSync(fd, part);
    written += part.length;
  }
  fs.closeSync(fd);
  return { file, logs: logs.length, bytes: written };
}

function nativeSeconds(file) {
  const start = process.hrtime.bigint();
  const p = spawnSync(NATIVE_BIN, ['diagnose', '--jobs', '1', '--json', '--pack', PACK, file], { stdio: ['ignore', 'ignore', 'pipe'] });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (p.status !== 0 && p.status !== 1) throw new Error(`faultline diagnose: exit ${p.status}: ${p.stderr}`);
  return seconds;
}

function wasmSeconds(pack, bytes, name) {
  const start = process.hrtime.bigint();
  const d = pack.diagnoser();
  d.beginSource(name);
  for (let at = 0; at < bytes.length; at += MiB) d.feed(bytes.subarray(at, Math.min(at + MiB, bytes.length)));
  d.endSource();
  d.report('json');
  d.free();
  return Number(process.hrtime.bigint() - start) / 1e9;
}

async function main() {
  const mib = option('--mib', 64);
  const runs = option('--runs', 3);
  const FaultlineWasm = require(path.join(WASM_DIR, 'faultline-api.js'));
  const fl = await FaultlineWasm.load(require(path.join(WASM_DIR, 'faultline-wasm.js')));
  const pack = fl.openPack(fs.readFileSync(PACK));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'faultline-bench-wasm-'));
  const rows = [];
  try {
    const empty = path.join(tmp, 'empty.log');
    fs.writeFileSync(empty, '');
    const startup = Math.min(...Array.from({ length: runs }, () => nativeSeconds(empty)));
    for (const c of corpora()) {
      const made = corpusFile(c.dir, mib * MiB, tmp, c.name);
      const bytes = fs.readFileSync(made.file);
      const native = Math.min(...Array.from({ length: runs }, () => nativeSeconds(made.file))) - startup;
      const wasm = Math.min(...Array.from({ length: runs }, () => wasmSeconds(pack, bytes, made.file)));
      rows.push({ ...c, ...made, native: made.bytes / native, wasm: made.bytes / wasm });
      fs.rmSync(made.file);
    }
  } finally {
    pack.free();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  const mbs = (v) => (v / 1e6).toFixed(0);
  console.log(`faultline ${fl.version}, Node ${process.version}, ${os.cpus()[0].model}, best of ${runs}`);
  console.log('| corpus | logs | MiB | native MB/s | WebAssembly MB/s | WebAssembly / native |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const r of rows)
    console.log(`| ${r.name} | ${r.logs} | ${(r.bytes / MiB).toFixed(0)} | ${mbs(r.native)} | ${mbs(r.wasm)} | ${(r.wasm / r.native).toFixed(2)} |`);
}

main().catch((e) => {
  console.error(`bench/wasm: ${e.message}`);
  process.exit(1);
});
