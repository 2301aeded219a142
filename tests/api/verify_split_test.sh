#!/usr/bin/env bash
# Signed packs keep libfaultline dependency-free: the cryptography lives in
# libfaultline_verify (libsodium), which exports only fl_ symbols and needs
# nothing of libfaultline; libfaultline needs no libsodium and calls none of it.
set -euo pipefail
core_so=$1
core_a=$2
verify_so=$3
fail() { echo "FAIL: $*" >&2; exit 1; }
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }

core_needs=$(needed "$core_so")
[ -n "$core_needs" ] || fail "readelf shows no NEEDED entry in $core_so (is readelf reading it?)"
! grep -q sodium <<<"$core_needs" || fail "libfaultline needs libsodium: $core_needs"
crypto=$(nm -u "$core_a" | awk '{ print $NF }' | grep -E '^(crypto_|sodium_|randombytes_)' | sort -u || true)
[ -z "$crypto" ] || fail "libfaultline.a calls libsodium: $crypto"

verify_needs=$(needed "$verify_so")
grep -q '^libsodium\.so' <<<"$verify_needs" || fail "libfaultline_verify does not link libsodium: $verify_needs"
! grep -q '^libfaultline\.so' <<<"$verify_needs" || fail "libfaultline_verify needs libfaultline: $verify_needs"
symbols=$(nm -D --defined-only "$verify_so" | awk '{ print $3 }')
bad=$(grep -v '^fl_' <<<"$symbols" || true)
[ -z "$bad" ] || fail "libfaultline_verify exports symbols outside the fl_ API: $bad"
for s in fl_verifier_create fl_verifier_create_from_text fl_verifier_key_count fl_verifier_free; do
  grep -qx "$s" <<<"$symbols" || fail "$s is not exported"
done
echo "verify split: libfaultline needs $(tr '\n' ' ' <<<"$core_needs")and no libsodium; libfaultline_verify exports $(wc -l <<<"$symbols") fl_ symbols"
