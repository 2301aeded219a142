// A headless Chromium driven over the DevTools protocol on a pipe
// (--remote-debugging-pipe: NUL-separated JSON on fds 3 and 4), enough to
// open a page and evaluate expressions in it. No npm package needed.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const BINARY = process.env.CHROMIUM || 'chromium';

function available() {
  return spawnSync(BINARY, ['--version'], { stdio: 'ignore' }).status === 0;
}

async function launch() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'faultline-chromium-'));
  const proc = spawn(
    BINARY,
    [
      '--headless=new',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-breakpad',
      '--disable-crash-reporter',
      '--remote-debugging-pipe',
      `--user-data-dir=${profile}`,
      'about:blank',
    ],
    // Its own process group: close() can end the helper processes it leaves.
    { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'], detached: true }
  );
  const toBrowser = proc.stdio[3], fromBrowser = proc.stdio[4];
  toBrowser.on('error', () => {}); // a browser that died: its exit says so
  const killGroup = (signal) => {
    try {
      process.kill(-proc.pid, signal);
    } catch {
      // the group has already gone
    }
  };
  const pending = new Map();
  let nextId = 0, buffered = '';
  fromBrowser.on('data', (data) => {
    buffered += data;
    for (let end; (end = buffered.indexOf('\0')) >= 0; ) {
      const msg = JSON.parse(buffered.slice(0, end));
      buffered = buffered.slice(end + 1);
      if (msg.id && pending.has(msg.id)) {
        pending.get(msg.id)(msg);
        pending.delete(msg.id);
      }
    }
  });
  const send = (method, params = {}, sessionId) =>
    new Promise((resolve, reject) => {
      const msg = { id: ++nextId, method, params };
      if (sessionId) msg.sessionId = sessionId;
      pending.set(msg.id, (reply) => (reply.error ? reject(new Error(`${method}: ${reply.error.message}`)) : resolve(reply.result)));
      toBrowser.write(JSON.stringify(msg) + '\0');
    });
  const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
  return {
    async open(url) {
      await send('Page.navigate', { url }, sessionId);
    },
    // The value of `expression` in the page (awaited if a promise).
    async evaluate(expression) {
      const r = await send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true }, sessionId);
      if (r.exceptionDetails) throw new Error(`in the page: ${r.exceptionDetails.exception?.description || r.exceptionDetails.text}`);
      return r.result.value;
    },
    async close() {
      const gone = () => proc.exitCode !== null || proc.signalCode !== null;
      const exited = gone() ? Promise.resolve() : new Promise((resolve) => proc.once('exit', resolve));
      // Asked to close, the browser ends its helper processes and lets go of
      // the profile; a browser that does not answer is killed.
      const asked = send('Browser.close').catch(() => {});
      const timeout = (ms) => new Promise((resolve) => setTimeout(resolve, ms).unref());
      await Promise.race([asked.then(() => exited), timeout(5000)]);
      killGroup('SIGKILL');
      await exited;
      // The profile is the browser's scratch: a helper still writing to it
      // (seen in CI: ENOTEMPTY on its Default/) is waited for, and a profile
      // that cannot be removed is left behind with a warning, not a failure.
      try {
        fs.rmSync(profile, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
      } catch (e) {
        process.stderr.write(`chromium.js: left ${profile} behind: ${e.message}\n`);
      }
    },
  };
}

module.exports = { available, launch };
