#!/usr/bin/env bash
# Quick start: install the dependencies, build, and run the main job on the
# bundled example: compile the encyclopedia in signatures/ into a knowledge
# pack and prove every entry's examples against it.
set -euo pipefail
cd "$(dirname "$0")"
.ci/install-deps
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
build/compiler/flc compile signatures -o build/default.flpack
build/compiler/flc stats build/default.flpack
build/compiler/flc test signatures
# The library on a bundled real log (tests/data/logs/SOURCES.md): the C99
# example prints each event with its captured fields and frame.
build/tests/scan_log_c tests/data/logs/A009.log
