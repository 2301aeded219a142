#!/usr/bin/env bash
# The C99 diagnosis example on bundled real logs: each gets the initiating
# failure it was labeled with (tests/data/logs/SOURCES.md) and the launcher
# advice that failure calls for.
set -euo pipefail
bin=$1
logs=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
expect() {  # log, exit status, grep pattern of the decision line
  set +e
  out=$("$bin" "$logs/$1" 2>&1)
  rc=$?
  set -e
  [ "$rc" = "$2" ] || fail "$1: exit $rc, expected $2: $out"
  grep -Eq "$3" <<<"$out" || fail "$1: no line matching '$3' in:
$out"
}
expect A009.log 0 'verdict=1 entry=torchrun-port-in-use .*action=fix-config retry=0'
expect A052.log 0 'verdict=1 entry=cuda-(out-of-memory|oom-fragmentation) '
expect B063.log 0 'verdict=1 entry=gpu-fallen-off-bus-xid79 .*action=exclude-node-and-retry retry=1'
expect B043.log 0 'verdict=1 entry=host-oom-killed .*rank=0 .*action=add-resources'
healthy=$(mktemp)
trap 'rm -f "$healthy"' EXIT
printf 'step 1 loss 2.3\nstep 2 loss 2.1\n' > "$healthy"
set +e
out=$("$bin" "$healthy" 2>&1)
rc=$?
set -e
[ "$rc" = 1 ] || fail "healthy log: exit $rc, expected 1: $out"
grep -q 'verdict=0 entry=- ' <<<"$out" || fail "healthy log: $out"
echo "c api diagnosis: all checks passed"
