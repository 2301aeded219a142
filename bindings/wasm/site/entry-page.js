// One encyclopedia page per entry, from the entry's JSON (faultline explain
// --format json): every section of the native page, in HTML.
'use strict';

const { esc, externalLink, severityBadge } = require('./html');

// Folded YAML keeps single newlines inside paragraphs; blank lines split them.
function paragraphs(text) {
  return text
    .split(/\n{2,}/)
    .filter((p) => p.trim())
    .map((p) => `<p>${esc(p)}</p>`)
    .join('\n');
}

function section(id, heading, inner) {
  if (!inner) return '';
  return `<section id="${id}">\n<h2>${esc(heading)}</h2>\n${inner}\n</section>`;
}

function list(items, ordered = false) {
  if (!items.length) return '';
  const tag = ordered ? 'ol' : 'ul';
  return `<${tag}>${items.map((x) => `<li>${esc(x)}</li>`).join('')}</${tag}>`;
}

function command(run, note, noteLabel) {
  return `<div class="command"><pre><code>${esc(run)}</code></pre>${
    note ? `<p>${noteLabel ? `<strong>${esc(noteLabel)}</strong> ` : ''}${esc(note)}</p>` : ''
  }</div>`;
}

/** A link to another entry page, with its severity. `known` holds the ids that have pages. */
function entryLink(link, known) {
  const label = `<code>${esc(link.id)}</code>`;
  const target = known.has(link.id) ? `<a href="${esc(link.id)}.html">${label}</a>` : label;
  return `<li>${target} ${severityBadge(link.severity)} ${esc(link.title)}</li>`;
}

function renderEntry(e, known) {
  const facts = [
    ['id', e.id],
    ['type', e.type],
    ['category', e.category],
    ['role', e.role],
    ['action', e.action],
  ]
    .map(([k, v]) => `<span class="fact"><span class="k">${k}</span> <code>${esc(v)}</code></span>`)
    .join(' ');
  const origin =
    e.pack.library !== 'faultline' || e.pack.replaces
      ? `<p class="origin">From the pack <code>${esc(e.pack.library)}</code>${
          e.pack.replaces ? ', in place of the entry of the same id below it' : ''
        }.</p>`
      : '';
  const answers = e.answers.map((a) => `<dt>${esc(a.question)}</dt><dd>${esc(a.text)}</dd>`).join('');
  const symptoms = e.symptoms
    .map((s) => `<li><pre class="observe"><code>${esc(s.observe)}</code></pre><p>${esc(s.why)}</p></li>`)
    .join('');
  const fixCommands = e.fix_commands.map((c) => command(c.run, c.explain)).join('');
  const codeExamples = e.code_examples
    .map(
      (c) =>
        `<h3>${esc(c.stack_name)}</h3><pre><code class="lang">${esc(c.code)}</code></pre>` +
        `<p><strong>Why:</strong> ${esc(c.why)}</p>`,
    )
    .join('');
  const verify = e.verify.map((v) => command(v.run, v.expect, 'Expect:')).join('');
  const versions = e.versions
    .map((v) => `<li><code>${esc(v.component)} ${esc(v.range)}</code>: ${esc(v.note)}</li>`)
    .join('');
  const patterns = e.patterns
    .map(
      (p) =>
        `<li><code class="pattern-name">${esc(p.name)}</code><pre class="regex"><code>${esc(p.regex)}</code></pre>` +
        `<p class="source">Printed by: ${esc(p.source)}</p></li>`,
    )
    .join('');
  const references = e.references.map((r) => `<li>${externalLink(r.url, r.title)}</li>`).join('');
  const body = `<article class="entry">
<h1>${esc(e.title)}</h1>
<p class="facts">${severityBadge(e.severity)} ${facts}</p>
${origin}
${e.deprecated ? '<p class="deprecated">Deprecated: kept so the id stays reserved; not reported as a diagnosis.</p>' : ''}
${section('summary', 'What it is', paragraphs(e.summary))}
${section('at-a-glance', 'At a glance', answers && `<dl>${answers}</dl>`)}
${section('mechanism', 'Mechanism', paragraphs(e.mechanism))}
${section('symptoms', 'What you will observe', symptoms && `<ul class="symptoms">${symptoms}</ul>`)}
${section('why', 'Why', paragraphs(e.root_cause))}
${section('confirm', 'How to confirm', list(e.confirm))}
${section('fix', 'Fix', list(e.fix_steps, true) + fixCommands)}
${section('fix-in-code', 'Fix in code, by stack', codeExamples)}
${section('verify', 'Verification', verify)}
${section('prevention', 'Prevention', list(e.prevention))}
${section('versions', 'Versions', versions && `<ul>${versions}</ul>`)}
${section('references', 'References', references && `<ul>${references}</ul>`)}
${section('related', 'Related failures', e.related.length && `<ul class="links">${e.related.map((r) => entryLink(r, known)).join('')}</ul>`)}
${section('causes', 'Often followed by', e.causes.length && `<ul class="links">${e.causes.map((r) => entryLink(r, known)).join('')}</ul>`)}
${section(
  'signature',
  'Error signature',
  `<p class="fingerprint"><strong>Alert on:</strong> ${esc(e.fingerprint)}</p>` +
    (patterns && `<p>The log lines this entry is matched by:</p><ul class="patterns">${patterns}</ul>`),
)}
${e.pack.source_path ? `<p class="source-path">Source: <code>signatures/${esc(e.pack.source_path)}</code></p>` : ''}
</article>`;
  return body;
}

module.exports = { renderEntry };
