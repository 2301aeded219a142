// HTML building blocks of the site: escaping and the page frame every page
// shares. Pack text is untrusted (a site pack is anyone's YAML), so every
// value goes through esc(); markup comes only from this generator.
'use strict';

const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for HTML content and attribute values (quoted): no markup survives. */
function esc(value) {
  return String(value).replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/** An external link: only http(s) URLs become hrefs; anything else (javascript:, data:) stays text. */
function externalLink(url, title) {
  const label = esc(title || url);
  if (!/^https?:\/\/[^\s]+$/i.test(url)) return `${label} <span class="url">${esc(url)}</span>`;
  return `<a href="${esc(url)}" rel="noopener noreferrer">${label}</a>`;
}

const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'];

/** A severity badge; the class comes from the closed list, never from the pack. */
function severityBadge(severity) {
  const known = SEVERITIES.includes(severity) ? severity : 'info';
  return `<span class="sev sev-${known}">${esc(severity)}</span>`;
}

// No network from any page: scripts and styles only from the site itself,
// the worker from a blob: URL (file:// allows no other), WebAssembly
// compiled in place, and no fetch, XHR, WebSocket, form or <base> at all.
const CSP = [
  "default-src 'none'",
  "script-src 'self' 'wasm-unsafe-eval' blob:",
  'worker-src blob:',
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'none'",
  "form-action 'none'",
  "base-uri 'none'",
].join('; ');

/** The diagnosis panel on every page: paste, drop or choose a log; diagnosed in this browser only. */
function diagnosePanel() {
  return `<section id="diagnose" aria-labelledby="diagnose-title">
<h2 id="diagnose-title">Paste or drop your log</h2>
<p class="privacy">Your log is diagnosed here, in this browser, by the faultline runtime compiled to WebAssembly.
Nothing is uploaded: this page's Content-Security-Policy forbids it any network request, and it works with the network off.</p>
<div id="drop-zone" class="drop-zone" tabindex="0">
<p>Drop a log file here, or <label for="log-file" class="file-label">choose a file</label>
<input type="file" id="log-file"></p>
</div>
<textarea id="log-text" rows="8" spellcheck="false" placeholder="...or paste log lines here"></textarea>
<p><button type="button" id="diagnose-text">Diagnose the pasted text</button>
<span id="diagnose-status" role="status"></span></p>
<progress id="diagnose-progress" max="1" value="0" hidden></progress>
<div id="report" hidden>
<h3>Diagnosis</h3>
<ul id="report-entries"></ul>
<pre id="report-text"></pre>
</div>
</section>`;
}

/**
 * A whole page. `root` is the path from the page to the site's top ("" or "../").
 * `info` names the pack the site was built from, for the footer.
 */
function page({ root, title, body, info }) {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${esc(CSP)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${esc(title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${root}assets/style.css">
<script src="${root}assets/search-index.js" defer></script>
<script src="${root}assets/search.js" defer></script>
<script src="${root}assets/diagnose.js" defer></script>
</head>
<body data-root="${esc(root)}">
<header class="top">
<a class="home" href="${root}index.html">faultline encyclopedia</a>
<div class="search">
<input type="search" id="search" placeholder="Search titles and error messages" aria-label="Search titles and error messages" autocomplete="off">
<ol id="search-results" hidden></ol>
</div>
</header>
<main>
${body}
${diagnosePanel()}
</main>
<footer>Built from the ${esc(info.library)} knowledge pack ${esc(info.version)} (${esc(info.entries)} entries).
The same pack and runtime as the <code>faultline</code> command.</footer>
</body>
</html>
`;
}

module.exports = { esc, externalLink, severityBadge, page, CSP, SEVERITIES };
