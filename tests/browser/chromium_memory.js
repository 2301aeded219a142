// Resident memory of a Chromium and all its processes (renderers, GPU,
// utility), read from /proc: the sum of VmRSS of the browser process and its
// descendants. Shared pages count once per process, so the sum overstates
// the total; the tests bound its growth, which a leak or a file held whole
// would show all the same.
'use strict';

const fs = require('fs');

function children() {
  const byParent = new Map();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat;
    try {
      stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch (e) {
      continue; // the process ended meanwhile
    }
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (!byParent.has(ppid)) byParent.set(ppid, []);
    byParent.get(ppid).push(Number(name));
  }
  return byParent;
}

function rssBytes(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch (e) {
    return 0;
  }
}

/** Total RSS of `pid` and its descendants, in bytes. */
function treeRss(pid) {
  const byParent = children();
  let total = 0;
  const todo = [pid];
  while (todo.length) {
    const p = todo.pop();
    total += rssBytes(p);
    for (const c of byParent.get(p) || []) todo.push(c);
  }
  return total;
}

/** Samples treeRss(pid) every `ms` until stop(); returns {stop() -> {max, samples}}. */
function sampler(pid, ms) {
  let max = 0;
  let samples = 0;
  const take = () => {
    max = Math.max(max, treeRss(pid));
    samples++;
  };
  take();
  const timer = setInterval(take, ms);
  return {
    stop() {
      clearInterval(timer);
      take();
      return { max, samples };
    },
  };
}

module.exports = { treeRss, sampler };
