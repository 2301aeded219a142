/*
 * diagnose-worker.js - a classic Web Worker that diagnoses a log with the
 * WebAssembly runtime, off the page's thread, streaming a File chunk by chunk.
 *
 * faultline-wasm.js and faultline-api.js must be loaded before this script:
 * concatenated into the worker's source (a Blob URL works from file://) or
 * through importScripts().
 *
 * In:  {type: 'diagnose', pack: ArrayBuffer, file: File|Blob, name}
 *      {type: 'diagnose-text', pack: ArrayBuffer, text: string, name}
 *      (pack may be left out once a pack was sent: the cached one is used)
 * Out: {type: 'progress', done, total}        bytes read so far, of the file's size
 *      {type: 'report', json, text}           the report (faultline.report/2 JSON, and text)
 *      {type: 'error', message}
 *
 * The pack is opened once per worker: it is kept and reused while the pack
 * sent is the same ArrayBuffer, or holds the same bytes (postMessage gives
 * the worker a new copy of a buffer with each message).
 */
/* global FaultlineWasm */
(function () {
  'use strict';

  const PROGRESS_INTERVAL_MS = 100; // progress messages at most this often (a 2 GB file has ~30000 chunks)
  const TEXT_CHUNK_CHARS = 1 << 20;

  let faultlinePromise = null;
  let cached = null; // {buffer, bytes: Uint8Array copy for comparison, pack}

  function faultline() {
    if (!faultlinePromise) faultlinePromise = FaultlineWasm.load();
    return faultlinePromise;
  }

  function sameBytes(a, b) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }

  async function packFor(buffer) {
    const fl = await faultline();
    if (!buffer) {
      if (!cached) throw new Error('no pack was sent to the worker');
      return cached.pack;
    }
    const bytes = buffer instanceof Uint8Array ? buffer : new Uint8Array(buffer);
    if (cached && (cached.buffer === buffer || sameBytes(cached.bytes, bytes))) {
      cached.buffer = buffer;
      return cached.pack;
    }
    const pack = fl.openPack(bytes);
    if (cached) cached.pack.free();
    cached = { buffer, bytes: bytes.slice(), pack };
    return pack;
  }

  function progressPoster(total) {
    let last = 0;
    return (done) => {
      const now = Date.now();
      if (done === total || now - last >= PROGRESS_INTERVAL_MS) {
        last = now;
        self.postMessage({ type: 'progress', done, total });
      }
    };
  }

  function isHighSurrogate(code) {
    return code >= 0xd800 && code <= 0xdbff;
  }

  // A string as a stream of UTF-8 chunks, so that pasted text takes the same
  // path as a file without a second whole copy of it.
  async function* textChunks(text) {
    const encoder = new TextEncoder();
    let at = 0;
    while (at < text.length) {
      let end = Math.min(at + TEXT_CHUNK_CHARS, text.length);
      // Do not cut a surrogate pair in two: each half would encode as U+FFFD.
      if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end--;
      yield encoder.encode(text.slice(at, end));
      at = end;
    }
  }

  // The UTF-8 length of a string (as TextEncoder encodes it), for the progress total.
  function utf8Length(text) {
    let n = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c < 0x80) n += 1;
      else if (c < 0x800) n += 2;
      else if (isHighSurrogate(c) && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
        n += 4;
        i++;
      } else n += 3; // the rest of the BMP, and a lone surrogate (U+FFFD)
    }
    return n;
  }

  async function handle(msg) {
    const pack = await packFor(msg.pack);
    if (msg.type === 'diagnose') {
      const file = msg.file;
      const total = file.size;
      return FaultlineWasm.diagnoseStream(pack, file.stream(), {
        name: msg.name || file.name || '-',
        totalBytes: total,
        onProgress: progressPoster(total),
      });
    }
    if (msg.type === 'diagnose-text') {
      const text = String(msg.text);
      const total = utf8Length(text);
      return FaultlineWasm.diagnoseStream(pack, textChunks(text), {
        name: msg.name || '-',
        totalBytes: total,
        onProgress: progressPoster(total),
      });
    }
    throw new Error(`unknown message type ${String(msg.type)}`);
  }

  // One message at a time, in order: a second drop waits for the first.
  let queue = Promise.resolve();
  self.onmessage = (event) => {
    const msg = event.data || {};
    queue = queue.then(async () => {
      try {
        const report = await handle(msg);
        self.postMessage({ type: 'report', json: report.json, text: report.text });
      } catch (e) {
        self.postMessage({ type: 'error', message: String((e && e.message) || e) });
      }
    });
  };
})();
