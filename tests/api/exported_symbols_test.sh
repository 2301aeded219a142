#!/usr/bin/env bash
# The shared library exports the fl_ API and nothing else.
set -euo pipefail
lib=$1
symbols=$(nm -D --defined-only "$lib" | awk '{ print $3 }')
[ -n "$symbols" ] || { echo "FAIL: no exported symbols in $lib" >&2; exit 1; }
bad=$(grep -v '^fl_' <<<"$symbols" || true)
[ -z "$bad" ] || { echo "FAIL: symbols outside the fl_ API:" >&2; echo "$bad" >&2; exit 1; }
grep -qx fl_scanner_feed <<<"$symbols" || { echo "FAIL: fl_scanner_feed is not exported" >&2; exit 1; }
echo "exported: $(wc -l <<<"$symbols") fl_ symbols only"
