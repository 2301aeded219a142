#!/usr/bin/env bash
# CI for the language server (bindings/cli/lsp): builds the faultline command
# and runs its tests, the scripted JSON-RPC conversation and headless Neovim.
# Needs (Debian 12): nlohmann-json3-dev (build), neovim (the editor test),
# python3; the rest is the project's usual build dependencies.
#   tests/lsp/ci.sh [BUILD_DIR]     (default: build)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
[ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$build" -j2 --target faultline_cli faultline_default_pack flc
command -v nvim >/dev/null || { echo "tests/lsp/ci.sh: nvim is missing (apt-get install neovim)" >&2; exit 1; }
cmake -S . -B "$build" >/dev/null  # registers lsp_neovim now that nvim is there
ctest --test-dir "$build" -R '^lsp_' --output-on-failure
