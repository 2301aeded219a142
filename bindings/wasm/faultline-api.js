/*
 * faultline-api.js - the JS API over the WebAssembly runtime (faultline-wasm.js).
 *
 * A classic script (UMD): loaded by <script> or importScripts() it defines
 * globalThis.FaultlineWasm; in Node, require() and import give the same object.
 *
 *   const faultline = await FaultlineWasm.load();
 *   const pack = faultline.openPack(packBytes);          // ArrayBuffer | Uint8Array
 *   const d = pack.diagnoser();
 *   d.beginSource('job.log');
 *   d.feed(chunk);                                       // Uint8Array, any size
 *   d.endSource();
 *   const json = d.report('json'), text = d.report('text');
 *   d.free(); pack.free();
 *
 * Memory: the pack is copied once into the wasm heap (the library reads it in
 * place); each diagnoser copies the chunks it is fed, 1 MiB at a time, into
 * one scratch buffer allocated when it is created. Nothing else of a log is
 * copied, so a log of any size is diagnosed in bounded memory.
 */
(function (root, factory) {
  'use strict';
  const api = factory();
  if (typeof module === 'object' && module.exports) module.exports = api;
  root.FaultlineWasm = api;
})(typeof globalThis !== 'undefined' ? globalThis : this, function () {
  'use strict';

  const SCRATCH_BYTES = 1 << 20; // one feed copies at most this much at a time
  const ERRBUF_BYTES = 512;
  const REPORT_FORMATS = { json: 0, text: 1, summary: 3 };
  const PAGE_FORMATS = { text: 0, markdown: 1 };
  const VERDICTS = ['no-failure', 'failure', 'inconclusive'];
  const NO_ENTRY = 0xffffffff;
  // Layouts checked at build time by wasm_layout.c.
  const DIAGNOSER_OPTIONS_BYTES = 20;
  const DIAGNOSIS_BYTES = 744;

  const utf8 = new TextDecoder('utf-8');

  // The module's views are replaced when its memory grows: always read them anew.
  function heapU8(m) {
    return m.HEAPU8;
  }

  function cString(m, ptr) {
    return ptr ? m.UTF8ToString(ptr) : '';
  }

  // A NUL-terminated UTF-8 copy of `text` in the heap, for one call.
  function withCString(m, text, fn) {
    const bytes = new TextEncoder().encode(String(text));
    const ptr = m._malloc(bytes.length + 1);
    if (!ptr) throw new Error('faultline: out of memory');
    try {
      const heap = heapU8(m);
      heap.set(bytes, ptr);
      heap[ptr + bytes.length] = 0;
      return fn(ptr);
    } finally {
      m._free(ptr);
    }
  }

  function asBytes(data, what) {
    if (data instanceof Uint8Array) return data;
    if (data instanceof ArrayBuffer) return new Uint8Array(data);
    if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    throw new TypeError(`faultline: ${what} must be an ArrayBuffer or a Uint8Array`);
  }

  class Faultline {
    constructor(module) {
      this.module = module;
      this.version = cString(module, module._fl_version_string());
    }

    /**
     * Whether a file of a dropped folder is a log to diagnose, by its name
     * (*.log, *.txt, *.out, *.err, ...): the rule of the faultline command.
     */
    isLogFileName(name) {
      const m = this.module;
      return withCString(m, name, (ptr) => m._fl_is_log_file_name(ptr)) === 1;
    }

    /** Opens a pack (an .flpack file's bytes); throws Error with the library's message. */
    openPack(bytes) {
      return new Pack(this, asBytes(bytes, 'the pack'));
    }
  }

  class Pack {
    constructor(faultline, bytes) {
      const m = faultline.module;
      this.faultline = faultline;
      this._refs = 1; // this object and each live diagnoser: the bytes live until the last goes
      this._handle = 0;
      // The library borrows the bytes (zero-copy) and wants them 8-byte
      // aligned: malloc's alignment.
      this._bytes = m._malloc(Math.max(bytes.length, 1));
      const scratch = m._malloc(4 + ERRBUF_BYTES);
      if (!this._bytes || !scratch) {
        m._free(this._bytes);
        m._free(scratch);
        throw new Error('faultline: out of memory for the pack');
      }
      try {
        heapU8(m).set(bytes, this._bytes);
        const out = scratch, errbuf = scratch + 4;
        heapU8(m)[errbuf] = 0;
        const st = m._fl_pack_open_memory(this._bytes, bytes.length, 0, out, errbuf, ERRBUF_BYTES);
        if (st !== 0) {
          const why = cString(m, errbuf) || cString(m, m._fl_status_str(st));
          throw new Error(`faultline: cannot open the pack: ${why}`);
        }
        this._handle = m.HEAPU32[out >>> 2];
      } catch (e) {
        m._free(this._bytes);
        this._bytes = 0;
        throw e;
      } finally {
        m._free(scratch);
      }
      this.version = cString(m, m._fl_pack_version(this._handle));
      this.entryCount = m._fl_pack_entry_count(this._handle) >>> 0;
    }

    _live() {
      if (!this._handle) throw new Error('faultline: the pack was freed');
      return this._handle;
    }

    /** Every entry: {index, id, title, type, category}. */
    entries() {
      const m = this.faultline.module, h = this._live();
      const list = [];
      for (let i = 0; i < this.entryCount; i++) {
        list.push({
          index: i,
          id: cString(m, m._fl_pack_entry_id(h, i)),
          title: cString(m, m._fl_pack_entry_title(h, i)),
          type: cString(m, m._fl_pack_entry_type(h, i)),
          category: cString(m, m._fl_pack_entry_category(h, i)),
        });
      }
      return list;
    }

    /** Index of the entry with this id, or -1. */
    findEntry(id) {
      const m = this.faultline.module, h = this._live();
      const index = withCString(m, id, (ptr) => m._fl_pack_find_entry(h, ptr) >>> 0);
      return index === NO_ENTRY ? -1 : index;
    }

    /** The encyclopedia page of an entry (by id or index) as 'text' or 'markdown'. */
    entryPage(idOrIndex, format = 'text') {
      const m = this.faultline.module, h = this._live();
      const fmt = PAGE_FORMATS[format];
      if (fmt === undefined) throw new Error(`faultline: unknown page format ${format} (text, markdown)`);
      const index = typeof idOrIndex === 'number' ? idOrIndex : this.findEntry(idOrIndex);
      if (!Number.isInteger(index) || index < 0 || index >= this.entryCount)
        throw new Error(`faultline: no entry ${idOrIndex} in the pack`);
      const len = m._fl_pack_entry_page(h, index, fmt, 0, 0) >>> 0;
      const buf = m._malloc(len + 1);
      if (!buf) throw new Error('faultline: out of memory for the page');
      try {
        m._fl_pack_entry_page(h, index, fmt, buf, len + 1);
        return utf8.decode(heapU8(m).subarray(buf, buf + len));
      } finally {
        m._free(buf);
      }
    }

    /**
     * A diagnoser over this pack. options.maxLineBytes: as the C API's
     * max_line_bytes (0 or absent: the library's default).
     */
    diagnoser(options = {}) {
      return new Diagnoser(this, options);
    }

    _release() {
      if (--this._refs === 0) {
        this.faultline.module._free(this._bytes);
        this._bytes = 0;
      }
    }

    /** Frees the pack; its bytes stay until the diagnosers made from it are freed too. */
    free() {
      if (!this._handle) return;
      this.faultline.module._fl_pack_free(this._handle);
      this._handle = 0;
      this._release();
    }
  }

  class Diagnoser {
    constructor(pack, options) {
      const m = pack.faultline.module;
      const maxLineBytes = options.maxLineBytes || 0;
      if (!Number.isInteger(maxLineBytes) || maxLineBytes < 0 || maxLineBytes > 0xffffffff)
        throw new RangeError('faultline: maxLineBytes must be an integer from 0 to 2^32-1');
      const packHandle = pack._live();
      this.pack = pack;
      this.module = m;
      this._handle = 0;
      // One block: the feed scratch, then the out-parameters and options.
      this._scratch = m._malloc(SCRATCH_BYTES + 8 + DIAGNOSIS_BYTES);
      if (!this._scratch) throw new Error('faultline: out of memory for the diagnoser');
      this._outs = this._scratch + SCRATCH_BYTES; // two 4-byte out-parameters
      this._struct = this._outs + 8; // fl_diagnoser_options, then fl_diagnosis
      const heap = heapU8(m);
      heap.fill(0, this._struct, this._struct + DIAGNOSER_OPTIONS_BYTES);
      const view = new DataView(heap.buffer);
      view.setUint32(this._struct, DIAGNOSER_OPTIONS_BYTES, true);
      view.setUint32(this._struct + 8, maxLineBytes, true);
      const st = m._fl_diagnoser_create(packHandle, this._struct, this._outs);
      if (st !== 0) {
        m._free(this._scratch);
        throw new Error(`faultline: cannot create a diagnoser: ${cString(m, m._fl_status_str(st))}`);
      }
      this._handle = m.HEAPU32[this._outs >>> 2];
      pack._refs++;
    }

    _live() {
      if (!this._handle) throw new Error('faultline: the diagnoser was freed');
      return this._handle;
    }

    _check(st, what) {
      if (st !== 0) {
        const m = this.module;
        const why = cString(m, m._fl_diagnoser_errmsg(this._handle)) || cString(m, m._fl_status_str(st));
        throw new Error(`faultline: ${what}: ${why}`);
      }
    }

    /** Starts (or continues) the source `name` (a file name hints the rank). */
    beginSource(name) {
      const h = this._live();
      this._check(
        withCString(this.module, name, (ptr) => this.module._fl_diagnoser_begin_source(h, ptr)),
        'begin source'
      );
    }

    /** Feeds the next bytes of the current source; chunks may split lines anywhere. */
    feed(chunk) {
      const h = this._live(), m = this.module;
      const bytes = asBytes(chunk, 'a chunk');
      for (let at = 0; at < bytes.length; at += SCRATCH_BYTES) {
        const piece = bytes.subarray(at, Math.min(at + SCRATCH_BYTES, bytes.length));
        heapU8(m).set(piece, this._scratch);
        this._check(m._fl_diagnoser_feed(h, this._scratch, piece.length), 'feed');
      }
    }

    /** Ends the current source (its last line may lack a line break). */
    endSource() {
      this._check(this.module._fl_diagnoser_end_source(this._live()), 'end source');
    }

    /** Records that the input was not read whole, and why; every report then says so. */
    setIncomplete(why) {
      const h = this._live();
      this._check(
        withCString(this.module, why, (ptr) => this.module._fl_diagnoser_set_incomplete(h, ptr)),
        'set incomplete'
      );
    }

    /** The report's bytes exactly as the library renders them ('json', 'text' or 'summary'). */
    reportBytes(format = 'json') {
      const h = this._live(), m = this.module;
      const fmt = REPORT_FORMATS[format];
      if (fmt === undefined) throw new Error(`faultline: unknown report format ${format} (json, text, summary)`);
      this._check(m._fl_diagnoser_report(h, fmt, this._outs, this._outs + 4), 'report');
      const ptr = m.HEAPU32[this._outs >>> 2], len = m.HEAPU32[(this._outs + 4) >>> 2];
      return heapU8(m).slice(ptr, ptr + len);
    }

    /** The report as a string: 'json' (faultline.report/2), 'text' or 'summary'. */
    report(format = 'json') {
      return utf8.decode(this.reportBytes(format));
    }

    /** The decision in numbers (fl_diagnosis): verdict, entry, rank, host, action, source, line... */
    result() {
      const h = this._live(), m = this.module, at = this._struct;
      heapU8(m).fill(0, at, at + DIAGNOSIS_BYTES);
      const view = new DataView(heapU8(m).buffer);
      view.setUint32(at, DIAGNOSIS_BYTES, true);
      this._check(m._fl_diagnoser_result(h, at), 'result');
      const text = (offset, size) => {
        const bytes = heapU8(m).subarray(at + offset, at + offset + size);
        const end = bytes.indexOf(0);
        return utf8.decode(end < 0 ? bytes : bytes.subarray(0, end));
      };
      const entry = view.getUint32(at + 8, true);
      return {
        verdict: VERDICTS[view.getInt32(at + 4, true)] || 'unknown',
        entry: entry === NO_ENTRY ? -1 : entry,
        retry: view.getUint32(at + 12, true) === 1,
        rank: Number(view.getBigInt64(at + 16, true)),
        confidence: view.getFloat64(at + 24, true),
        action: text(32, 32),
        host: text(64, 128),
        fingerprint: text(192, 32),
        templateText: text(224, 256),
        source: text(480, 256),
        line: Number(view.getBigUint64(at + 736, true)),
      };
    }

    /** Frees the diagnoser and its scratch buffer. */
    free() {
      if (!this._handle) return;
      this.module._fl_diagnoser_free(this._handle);
      this.module._free(this._scratch);
      this._handle = 0;
      this._scratch = 0;
      this.pack._release();
    }
  }

  // Chunks of a WHATWG ReadableStream (File.stream(), fetch bodies,
  // Readable.toWeb) or of any async iterable of byte arrays.
  async function* chunksOf(stream) {
    if (stream && typeof stream.getReader === 'function') {
      const reader = stream.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          yield value;
        }
      } finally {
        reader.releaseLock();
      }
    } else if (stream && typeof stream[Symbol.asyncIterator] === 'function') {
      yield* stream;
    } else {
      throw new TypeError('faultline: diagnoseStream needs a ReadableStream or an async iterable');
    }
  }

  /**
   * Diagnoses one stream as one source; onProgress(bytesDone, totalBytes)
   * after each chunk. Resolves to the report as {json, text}.
   */
  async function diagnoseStream(pack, stream, options = {}) {
    const name = options.name || '-';
    const total = options.totalBytes || 0;
    const d = pack.diagnoser(options);
    try {
      d.beginSource(name);
      let done = 0;
      for await (const chunk of chunksOf(stream)) {
        d.feed(chunk);
        done += chunk.byteLength;
        if (options.onProgress) options.onProgress(done, total);
      }
      d.endSource();
      return { json: d.report('json'), text: d.report('text') };
    } finally {
      d.free();
    }
  }

  /**
   * Instantiates the module and resolves to a Faultline. `factory` defaults
   * to createFaultlineModule from faultline-wasm.js (a global in a page or
   * worker, require()d beside this file in Node).
   */
  async function load(factory) {
    if (!factory) factory = typeof createFaultlineModule === 'function' ? createFaultlineModule : undefined;
    if (!factory && typeof require === 'function' && typeof module === 'object') factory = require('./faultline-wasm.js');
    if (typeof factory !== 'function')
      throw new Error('faultline: faultline-wasm.js is not loaded (createFaultlineModule is missing)');
    return new Faultline(await factory());
  }

  return { load, diagnoseStream, Faultline, Pack, Diagnoser, SCRATCH_BYTES };
});
