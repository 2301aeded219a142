#!/usr/bin/env bash
# Installs the build tree into a temporary prefix and builds the C consumer
# against it twice: with pkg-config, and with find_package (shared and
# static). Each binary must find the failure in a bundled real log.
set -euo pipefail
build=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cmake --install "$build" --prefix "$work/prefix" >/dev/null
log="$src/tests/data/logs/A009.log"

export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig:$work/prefix/lib/x86_64-linux-gnu/pkgconfig"
cc -std=c99 -pedantic -Wall -Wextra -Werror "$src/tests/api/scan_log.c" $(pkg-config --cflags --libs faultline) -o "$work/scan_pc"
libdir=$(pkg-config --variable=libdir faultline)
LD_LIBRARY_PATH="$libdir" "$work/scan_pc" "$log" 2>/dev/null | grep -q "torchrun-port-in-use" || fail "pkg-config build finds nothing"

cmake -S "$src/tests/install" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/consumer" >/dev/null
LD_LIBRARY_PATH="$libdir" "$work/consumer/scan_log_shared" "$log" 2>/dev/null | grep -q "torchrun-port-in-use" || fail "find_package shared build"
"$work/consumer/scan_log_static" "$log" 2>/dev/null | grep -q "torchrun-port-in-use" || fail "find_package static build"
echo "install: pkg-config and find_package consumers work"
