// "Paste or drop your log": the log is diagnosed in this browser by the
// WebAssembly runtime, in a worker, and nothing leaves the page (its CSP
// allows no network request). The pack (assets/pack.js) and the worker's
// source (assets/worker-src.js) are classic scripts loaded on first use:
// file:// pages can fetch nothing, and they are large. Everything shown
// goes through textContent: log text never becomes markup.
(function () {
  'use strict';

  const PASTED_NAME = 'pasted.log';
  let worker = null;
  let packBytes = null; // Uint8Array, decoded once; sent with the first job only
  let packSent = false;
  let busy = false;
  const ui = {};

  function loadScript(src) {
    return new Promise((resolve, reject) => {
      const s = document.createElement('script');
      s.src = src;
      s.onload = resolve;
      s.onerror = () => reject(new Error('could not load ' + src));
      document.head.append(s);
    });
  }

  async function ensureWorker() {
    if (worker) return;
    const root = document.body.dataset.root || '';
    setStatus('Loading the faultline runtime and its knowledge pack...');
    if (typeof window.FL_PACK_BASE64 !== 'string') await loadScript(root + 'assets/pack.js');
    if (typeof window.FaultlineWorkerSource !== 'string') await loadScript(root + 'assets/worker-src.js');
    const binary = atob(window.FL_PACK_BASE64);
    packBytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) packBytes[i] = binary.charCodeAt(i);
    delete window.FL_PACK_BASE64; // the bytes are all that is needed now
    const url = URL.createObjectURL(new Blob([window.FaultlineWorkerSource], { type: 'text/javascript' }));
    worker = new Worker(url);
    worker.onmessage = (ev) => onMessage(ev.data);
    worker.onerror = (ev) => finish('The diagnosis worker failed: ' + (ev.message || 'unknown error'));
  }

  function setStatus(text) {
    ui.status.textContent = text;
  }

  function setBusy(on) {
    busy = on;
    ui.file.disabled = on;
    ui.button.disabled = on;
    ui.zone.classList.toggle('busy', on);
  }

  async function diagnose(message, label) {
    if (busy) return;
    setBusy(true);
    ui.report.hidden = true;
    ui.progress.hidden = false;
    ui.progress.value = 0;
    try {
      await ensureWorker();
      setStatus('Diagnosing ' + label + ' in this browser...');
      if (!packSent) message.pack = packBytes.buffer;
      packSent = true;
      worker.postMessage(message);
    } catch (err) {
      finish(err.message);
    }
  }

  function finish(statusText) {
    setBusy(false);
    ui.progress.hidden = true;
    setStatus(statusText);
  }

  function onMessage(m) {
    if (!m || typeof m !== 'object') return;
    if (m.type === 'progress') {
      ui.progress.value = m.total ? m.done / m.total : 0;
    } else if (m.type === 'report') {
      showReport(String(m.text), String(m.json));
      finish('Done: diagnosed in this browser, nothing was uploaded.');
    } else if (m.type === 'error') {
      finish('Could not diagnose: ' + String(m.message));
    }
  }

  function knownIds() {
    return new Set((window.FL_SEARCH_INDEX || []).map((e) => e.id));
  }

  function entryLink(id, text) {
    const root = document.body.dataset.root || '';
    if (!knownIds().has(id)) {
      const code = document.createElement('code');
      code.textContent = text;
      return code;
    }
    const a = document.createElement('a');
    a.href = root + 'entries/' + encodeURIComponent(id) + '.html';
    a.textContent = text;
    return a;
  }

  // The text report, line by line: its first block (the initiating failure)
  // marked as the root, the lines of the Collateral block that name a
  // collateral entry as collateral. The text itself is the runtime's, unchanged.
  function showReport(text, json) {
    let report = null;
    try {
      report = JSON.parse(json);
    } catch (e) {
      report = null;
    }
    const rootId = report && report.root ? report.root.id : null;
    const collateral = report && Array.isArray(report.collateral) ? report.collateral : [];
    const collateralIds = new Set(collateral.map((f) => f.id));

    ui.text.replaceChildren();
    const lines = text.split('\n');
    let block = 'root';
    lines.forEach((line, i) => {
      if (line === '') block = 'other';
      if (line.startsWith('Collateral')) block = 'collateral';
      const span = document.createElement('span');
      span.textContent = i < lines.length - 1 ? line + '\n' : line;
      const first = line.trim().split(/\s+/)[0];
      if (rootId && block === 'root' && line !== '') span.className = 'root';
      else if (block === 'collateral' && collateralIds.has(first)) span.className = 'collateral';
      ui.text.append(span);
    });

    ui.entries.replaceChildren();
    if (report && report.root && report.root.id && report.root.id !== 'unknown') {
      const li = document.createElement('li');
      li.className = 'root';
      li.append('Initiating failure: ', entryLink(report.root.id, report.root.title || report.root.id));
      ui.entries.append(li);
    }
    for (const id of collateralIds) {
      const li = document.createElement('li');
      li.className = 'collateral';
      li.append('Collateral: ', entryLink(id, id));
      ui.entries.append(li);
    }
    ui.report.hidden = false;
  }

  function start() {
    ui.zone = document.getElementById('drop-zone');
    ui.file = document.getElementById('log-file');
    ui.paste = document.getElementById('log-text');
    ui.button = document.getElementById('diagnose-text');
    ui.status = document.getElementById('diagnose-status');
    ui.progress = document.getElementById('diagnose-progress');
    ui.report = document.getElementById('report');
    ui.entries = document.getElementById('report-entries');
    ui.text = document.getElementById('report-text');
    if (!ui.zone || !ui.file) return;

    const diagnoseFile = (file) => diagnose({ type: 'diagnose', file: file, name: file.name }, file.name);
    ui.file.addEventListener('change', () => {
      if (ui.file.files.length) diagnoseFile(ui.file.files[0]);
      ui.file.value = '';
    });
    ui.button.addEventListener('click', () => {
      if (ui.paste.value) diagnose({ type: 'diagnose-text', text: ui.paste.value, name: PASTED_NAME }, 'the pasted text');
    });
    // A file dropped anywhere on the page is diagnosed, not opened by the browser.
    document.addEventListener('dragover', (ev) => {
      ev.preventDefault();
      ui.zone.classList.add('over');
    });
    document.addEventListener('dragleave', () => ui.zone.classList.remove('over'));
    document.addEventListener('drop', (ev) => {
      ev.preventDefault();
      ui.zone.classList.remove('over');
      const files = ev.dataTransfer && ev.dataTransfer.files;
      if (files && files.length) diagnoseFile(files[0]);
    });
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
