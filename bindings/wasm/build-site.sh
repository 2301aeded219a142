#!/usr/bin/env bash
# Builds the encyclopedia site, from the pack, in one command:
#   bindings/wasm/build-site.sh [OUT]        (default: build-site)
# then open OUT/index.html (file:// works) or serve OUT from any static host.
# Builds what is missing or stale: the native faultline (it renders each entry
# as JSON), the WebAssembly runtime (bindings/wasm/build.sh), then the pages.
# Environment: FAULTLINE_BUILD (native build folder, default build),
# FAULTLINE_WASM_BUILD (default build-wasm), FAULTLINE_SITE_PACK (the pack
# the site shows and diagnoses with, default the native build's default pack).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="$(realpath -m "${1:-$root/build-site}")"
native="$(realpath -m "${FAULTLINE_BUILD:-$root/build}")"
wasm="$(realpath -m "${FAULTLINE_WASM_BUILD:-$root/build-wasm}")"

if [ ! -f "$native/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$native" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$native" --target faultline_cli -j"${FAULTLINE_JOBS:-2}" >/dev/null
pack="$(realpath "${FAULTLINE_SITE_PACK:-$native/default.flpack}")"

"$root/bindings/wasm/build.sh" "$wasm" >/dev/null

entries="$(mktemp)"
trap 'rm -f "$entries"' EXIT
"$native/faultline" explain --all --format json --pack "$pack" >"$entries"
node "$root/bindings/wasm/site/generate.js" --entries "$entries" --pack "$pack" \
  --wasm "$wasm/bindings/wasm" --out "$out"
echo "open $out/index.html"
