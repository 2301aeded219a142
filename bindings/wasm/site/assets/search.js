// Search over the entries' titles and error strings (window.FL_SEARCH_INDEX,
// from assets/search-index.js). Results are built with createElement and
// textContent only: neither the query nor pack text can become markup.
(function () {
  'use strict';

  const MAX_RESULTS = 25;
  const TITLE_WEIGHT = 3;

  function words(text) {
    return text.toLowerCase().split(/[^\p{L}\p{N}_]+/u).filter((w) => w.length > 1);
  }

  // A pasted log line carries numbers and names the entry's text does not
  // (sizes, ranks, hosts): long queries need most of their words, short ones all.
  function needed(queryWords) {
    return queryWords.length <= 3 ? queryWords.length : Math.ceil(queryWords.length * 0.6);
  }

  function prepare(index) {
    return index.map((e) => ({ entry: e, title: e.title.toLowerCase(), errors: (e.id + '\n' + e.errors).toLowerCase() }));
  }

  function search(prepared, query) {
    let queryWords = words(query);
    const nonNumeric = queryWords.filter((w) => !/^\p{N}+$/u.test(w));
    if (nonNumeric.length) queryWords = nonNumeric;
    if (!queryWords.length) return [];
    const want = needed(queryWords);
    const hits = [];
    for (const p of prepared) {
      let found = 0;
      let score = 0;
      for (const w of queryWords) {
        const inTitle = p.title.includes(w);
        const inErrors = p.errors.includes(w);
        if (inTitle || inErrors) found++;
        score += (inTitle ? TITLE_WEIGHT : 0) + (inErrors ? 1 : 0);
      }
      if (found >= want) hits.push({ entry: p.entry, found, score });
    }
    hits.sort((a, b) => b.found - a.found || b.score - a.score || a.entry.id.localeCompare(b.entry.id));
    return hits.slice(0, MAX_RESULTS).map((h) => h.entry);
  }

  function show(list, results, root) {
    list.replaceChildren();
    for (const e of results) {
      const li = document.createElement('li');
      const a = document.createElement('a');
      a.href = root + 'entries/' + encodeURIComponent(e.id) + '.html';
      a.textContent = e.title;
      const sev = document.createElement('span');
      sev.className = 'sev sev-' + (['critical', 'high', 'medium', 'low', 'info'].includes(e.severity) ? e.severity : 'info');
      sev.textContent = e.severity;
      const id = document.createElement('code');
      id.textContent = e.id;
      li.append(a, ' ', sev, ' ', id);
      list.append(li);
    }
    if (!results.length) {
      const li = document.createElement('li');
      li.className = 'none';
      li.textContent = 'No entry matches. Try fewer words, or paste the log below.';
      list.append(li);
    }
  }

  function start() {
    const input = document.getElementById('search');
    const list = document.getElementById('search-results');
    if (!input || !list || !Array.isArray(window.FL_SEARCH_INDEX)) return;
    const prepared = prepare(window.FL_SEARCH_INDEX);
    const root = document.body.dataset.root || '';
    input.addEventListener('input', () => {
      const query = input.value.trim();
      list.hidden = query === '';
      if (query) show(list, search(prepared, query), root);
    });
    input.addEventListener('keydown', (ev) => {
      if (ev.key === 'Escape') {
        input.value = '';
        list.hidden = true;
      }
    });
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
