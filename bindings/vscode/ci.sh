#!/usr/bin/env bash
# CI for the VS Code extension: install the locked npm packages, compile with
# tsc --strict, lint with no warnings, run the unit tests (and, with
# FAULTLINE_BIN set to a built faultline, the tests against the real program),
# package the .vsix and check what went into it.
# Needs Node.js >= 20 and npm; the registry is the only network it uses.
set -euo pipefail
cd "$(dirname "$0")"

npm ci --no-audit --no-fund
npm run compile
npm run lint
if [ -z "${FAULTLINE_BIN:-}" ] && [ -x ../../build/faultline ]; then
  FAULTLINE_BIN="$(cd ../../build && pwd)/faultline"
fi
if [ -n "${FAULTLINE_BIN:-}" ]; then
  export FAULTLINE_BIN
  echo "vscode extension: tests against $FAULTLINE_BIN"
fi
npm test
rm -f faultline-*.vsix
npm run package
node out/test/packageCheck.js
ls -l faultline-*.vsix
