#!/usr/bin/env bash
# Quick start: install the dependencies, build, compile the encyclopedia in
# signatures/ into a knowledge pack (proving every entry's examples), then run
# the main job on a bundled example with the embedded default pack: diagnose
# a failed two-node job (tests/golden/multirank/oom-rank5, built from real lines).
set -euo pipefail
cd "$(dirname "$0")"
.ci/install-deps
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
build/compiler/flc compile signatures -o build/default.flpack
build/compiler/flc stats build/default.flpack
build/compiler/flc test signatures
build/faultline diagnose tests/golden/multirank/oom-rank5
