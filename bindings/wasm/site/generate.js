#!/usr/bin/env node
// Writes the encyclopedia as a static site, from the pack itself:
//   node generate.js --entries ENTRIES.json --pack PACK --wasm DIR --out OUT
// ENTRIES.json is `faultline explain --all --format json --pack PACK`; DIR holds
// the WebAssembly runtime's worker (faultline-worker-source.js, from
// bindings/wasm/build.sh). bindings/wasm/build-site.sh
// runs all of it. Everything loads as classic scripts and works from file://.
'use strict';

const fs = require('fs');
const path = require('path');
const { page } = require('./html');
const { renderEntry } = require('./entry-page');
const { renderIndex } = require('./index-page');
const { searchIndexScript } = require('./search-index');

const ENTRY_ID = /^[a-z0-9]+(-[a-z0-9]+)*$/;  // ids become file names: nothing else is allowed
// The diagnosis worker's source as a classic script (bindings/wasm/bundle-worker.js).
const WORKER_SOURCE = 'faultline-worker-source.js';

function parseArgs(argv) {
  const args = {};
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '');
    if (!['entries', 'pack', 'wasm', 'out'].includes(key) || i + 1 >= argv.length) {
      throw new Error(`usage: generate.js --entries ENTRIES.json --pack PACK --wasm DIR --out OUT (bad: ${argv[i]})`);
    }
    args[key] = argv[i + 1];
  }
  for (const k of ['entries', 'pack', 'wasm', 'out']) if (!args[k]) throw new Error(`generate.js: --${k} is missing`);
  return args;
}

function readEntries(file) {
  const entries = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (!Array.isArray(entries) || !entries.length) throw new Error(`${file}: no entries`);
  for (const e of entries) {
    if (typeof e.id !== 'string' || !ENTRY_ID.test(e.id)) throw new Error(`${file}: entry id ${JSON.stringify(e.id)} is not a plain id`);
  }
  return entries;
}

function write(file, text) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

// The pack and the worker's source as classic scripts: file:// pages can
// neither fetch a file nor start a worker from one, but can load a script
// and start a worker from a blob: URL made of a string.
function packScript(packBytes) {
  return `// The knowledge pack the site was built from, base64 (bindings/wasm/site/generate.js).\nwindow.FL_PACK_BASE64 = "${packBytes.toString('base64')}";\n`;
}

function packInfo(entries) {
  const layers = [...new Set(entries.map((e) => `${e.pack.library}\u0000${e.pack.version}`))];
  const [library, version] = layers[layers.length - 1].split('\u0000');
  return { library: layers.length > 1 ? `${library} (over ${layers.length - 1} more)` : library, version, entries: entries.length };
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  const entries = readEntries(args.entries);
  const out = path.resolve(args.out);
  const info = packInfo(entries);
  const known = new Set(entries.map((e) => e.id));

  fs.rmSync(path.join(out, 'entries'), { recursive: true, force: true });  // no page of a removed entry survives
  write(path.join(out, 'index.html'), page({ root: '', title: 'faultline encyclopedia of training failures', body: renderIndex(entries), info }));
  for (const e of entries) {
    write(path.join(out, 'entries', `${e.id}.html`), page({ root: '../', title: `${e.title} - faultline`, body: renderEntry(e, known), info }));
  }
  const assets = path.join(out, 'assets');
  for (const f of ['style.css', 'search.js', 'diagnose.js']) write(path.join(assets, f), fs.readFileSync(path.join(__dirname, 'assets', f)));
  write(path.join(assets, 'search-index.js'), searchIndexScript(entries));
  write(path.join(assets, 'pack.js'), packScript(fs.readFileSync(args.pack)));
  write(path.join(assets, 'worker-src.js'), fs.readFileSync(path.join(args.wasm, WORKER_SOURCE)));
  console.log(`site: ${entries.length} entry pages, index, search and the diagnosis page in ${out}`);
}

try {
  main();
} catch (err) {
  console.error(`generate.js: ${err.message}`);
  process.exit(1);
}
