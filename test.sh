#!/usr/bin/env bash
# The whole test suite: builds what is missing, then runs every test.
set -euo pipefail
cd "$(dirname "$0")"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo ${FAULTLINE_CMAKE_ARGS:-} >/dev/null
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure -j"$(nproc)"
