#!/usr/bin/env bash
# The C consumer finds, in real logs, the failure each was labeled with
# (tests/data/logs/SOURCES.md), with the captured fields the entry promises.
set -euo pipefail
bin=$1
logs=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
expect() {  # log, grep pattern of an expected event line
  out=$("$bin" "$logs/$1" 2>/dev/null) || fail "$1: no events"
  grep -Eq "$2" <<<"$out" || fail "$1: no event matching '$2' in:
$out"
}
expect A009.log '^[0-9]+ torchrun-port-in-use/.* port=44796'
expect A052.log '^[0-9]+ cuda-out-of-memory/torch_oom .*requested='
expect B063.log '^[0-9]+ gpu-fallen-off-bus-xid79/'
expect B043.log '^[0-9]+ host-oom-killed/'
echo "c api: all checks passed"
