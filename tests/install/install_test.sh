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

# Signed packs: a pack signed by the build's flc, opened under the require policy.
"$build/compiler/flc" keygen -o "$work/site" >/dev/null
cp "$build/default.flpack" "$work/signed.flpack"
"$build/compiler/flc" sign --key "$work/site.key" "$work/signed.flpack" >/dev/null
id=$(cut -d' ' -f2 "$work/site.pub")
cp "$work/signed.flpack" "$work/unsigned.flpack"
cc -std=c99 -pedantic -Wall -Wextra -Werror "$src/tests/api/verify_pack.c" $(pkg-config --cflags --libs faultline faultline_verify) \
  -o "$work/verify_pc"
LD_LIBRARY_PATH="$libdir" "$work/verify_pc" "$work/site.pub" "$work/signed.flpack" | grep -q "signed by $id" ||
  fail "pkg-config verifier build does not open the signed pack"
if LD_LIBRARY_PATH="$libdir" "$work/verify_pc" "$work/site.pub" "$work/unsigned.flpack" 2>/dev/null; then
  fail "pkg-config verifier build opens an unsigned pack under the policy"
fi

cmake -S "$src/tests/install" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/consumer" >/dev/null
LD_LIBRARY_PATH="$libdir" "$work/consumer/scan_log_shared" "$log" 2>/dev/null | grep -q "torchrun-port-in-use" || fail "find_package shared build"
"$work/consumer/scan_log_static" "$log" 2>/dev/null | grep -q "torchrun-port-in-use" || fail "find_package static build"
for v in verify_pack_shared verify_pack_static; do
  LD_LIBRARY_PATH="$libdir" "$work/consumer/$v" "$work/site.pub" "$work/signed.flpack" | grep -q "signed by $id" ||
    fail "find_package $v does not open the signed pack"
  if LD_LIBRARY_PATH="$libdir" "$work/consumer/$v" "$work/site.pub" "$work/unsigned.flpack" 2>/dev/null; then
    fail "find_package $v opens an unsigned pack under the policy"
  fi
done
echo "install: pkg-config and find_package consumers work, signed packs included"
