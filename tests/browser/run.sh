#!/usr/bin/env bash
# The browser tests of the encyclopedia site (tests/browser/site_test.js):
#   tests/browser/run.sh
# Builds the site (bindings/wasm/build-site.sh, into FAULTLINE_SITE_DIR,
# default build-site) unless FAULTLINE_SITE_SKIP_BUILD=1, installs
# puppeteer-core from the committed package-lock.json, then drives Debian's
# chromium headless. Writes docs/screenshots/{entry-page,diagnosis}.png.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export FAULTLINE_SITE_DIR="${FAULTLINE_SITE_DIR:-$root/build-site}"
if [ "${FAULTLINE_SITE_SKIP_BUILD:-0}" != 1 ]; then
  "$root/bindings/wasm/build-site.sh" "$FAULTLINE_SITE_DIR"
fi
cd "$here"
npm ci --no-audit --no-fund
node --test site_test.js
