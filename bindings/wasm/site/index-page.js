// The site's front page: every entry by category, by severity and by type.
'use strict';

const { esc, severityBadge, SEVERITIES } = require('./html');

function groupBy(entries, key) {
  const groups = new Map();
  for (const e of entries) {
    if (!groups.has(e[key])) groups.set(e[key], []);
    groups.get(e[key]).push(e);
  }
  return groups;
}

function entryItem(e) {
  return `<li><a href="entries/${esc(e.id)}.html">${esc(e.title)}</a> ${severityBadge(e.severity)}</li>`;
}

function groups(heading, id, grouped, order) {
  const parts = order
    .filter((k) => grouped.has(k))
    .map(
      (k) =>
        `<details class="group"><summary><span class="group-name">${esc(k)}</span> ` +
        `<span class="count">${grouped.get(k).length}</span></summary>` +
        `<ul>${grouped.get(k).map(entryItem).join('')}</ul></details>`,
    );
  return `<section id="${id}"><h2>${esc(heading)}</h2>\n${parts.join('\n')}\n</section>`;
}

function renderIndex(entries) {
  const shown = entries.filter((e) => !e.deprecated);
  const byCategory = groupBy(shown, 'category');
  const byType = groupBy(shown, 'type');
  const bySeverity = groupBy(shown, 'severity');
  const sorted = (m) => [...m.keys()].sort();
  const otherSeverities = sorted(bySeverity).filter((s) => !SEVERITIES.includes(s));
  return `<h1>Why did my training run fail?</h1>
<p class="lede">${shown.length} failures of ML training runs, each with what you will observe, why it happens,
how to confirm it, the fix with its commands and how to verify it. Search by a word of a title or by an error
message, browse below, or drop your log into the box at the bottom of any page.</p>
${groups('By category', 'by-category', byCategory, sorted(byCategory))}
${groups('By severity', 'by-severity', bySeverity, SEVERITIES.concat(otherSeverities))}
${groups('By type', 'by-type', byType, sorted(byType))}`;
}

module.exports = { renderIndex };
