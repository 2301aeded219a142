#!/usr/bin/env bash
# Builds the WebAssembly runtime with Emscripten (Debian's `emscripten`):
#   bindings/wasm/build.sh [BUILD_DIR]      (default: build-wasm)
# Output in BUILD_DIR/bindings/wasm/: faultline-wasm.js (the module, wasm
# embedded), faultline-api.js (the JS API), diagnose-worker.js, and the
# worker bundled: faultline-worker.js and faultline-worker-source.js.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="$(realpath -m "${1:-$root/build-wasm}")"
# Debian's emcc runs its JS tools with the system node: they need acorn
# from /usr/share/nodejs.
export NODE_PATH="${NODE_PATH:+$NODE_PATH:}/usr/share/nodejs"
# The emscripten cache (system libraries built on first use) in the build
# folder when Debian's is not writable by this user.
if [ -z "${EM_CACHE:-}" ] && [ ! -w /usr/share/emscripten/cache ]; then
  export EM_CACHE="$build/emcache"
fi
# FlatBuffers is header-only and the same for every target, but its folder
# (/usr/include) must not be on the include path of an Emscripten build,
# where glibc's headers would shadow Emscripten's libc: a folder of its own.
deps="$(echo '#include <flatbuffers/flatbuffers.h>' | c++ -x c++ -M -)"
fb_header="$(tr ' \\' '\n\n' <<<"$deps" | grep '/flatbuffers/flatbuffers.h$' | sed -n 1p)"
[ -n "$fb_header" ] || { echo "build.sh: no flatbuffers/flatbuffers.h (Debian: apt-get install libflatbuffers-dev)" >&2; exit 1; }
mkdir -p "$build/flatbuffers-include"
ln -sfn "$(dirname "$fb_header")" "$build/flatbuffers-include/flatbuffers"
emcmake cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DFLATBUFFERS_INCLUDE_DIR="$build/flatbuffers-include" -DFLATC_EXECUTABLE="$(command -v flatc)" \
  ${FAULTLINE_WASM_CMAKE_ARGS:-} >/dev/null
cmake --build "$build" --target faultline_wasm_js -j"${FAULTLINE_WASM_JOBS:-2}"
echo "$build/bindings/wasm/faultline-wasm.js"
