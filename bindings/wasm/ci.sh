#!/usr/bin/env bash
# CI for the WebAssembly runtime: builds it, then runs tests/wasm against the
# native build of the same tree (its faultline command and default pack).
#   bindings/wasm/ci.sh [NATIVE_BUILD_DIR] [WASM_BUILD_DIR]   (default: build, build-wasm)
# Needs (Debian 12): emscripten, nodejs (18 or later: node --test), and the
# native build's packages; chromium for the browser test (skipped without it).
# The native build must exist: ./test.sh or cmake --build NATIVE_BUILD_DIR.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
native="$(realpath -m "${1:-$root/build}")"
wasm="$(realpath -m "${2:-$root/build-wasm}")"
for f in "$native/faultline" "$native/default.flpack"; do
  [ -e "$f" ] || { echo "bindings/wasm/ci.sh: $f is missing: build the native tree first" >&2; exit 1; }
done
# Warnings are errors here, as in the native CI build.
FAULTLINE_WASM_CMAKE_ARGS="-DFAULTLINE_WERROR=ON ${FAULTLINE_WASM_CMAKE_ARGS:-}" "$root/bindings/wasm/build.sh" "$wasm"
export FAULTLINE_WASM_DIR="$wasm/bindings/wasm" FAULTLINE_BIN="$native/faultline" FAULTLINE_PACK="$native/default.flpack"
node --test "$root/tests/wasm/"
# The throughput beside the native figure, for the log (not a pass/fail check).
node "$root/bench/wasm/throughput.js" --mib 64 --runs 3
