#!/usr/bin/env bash
# include/faultline.h (and faultline_verify.h) compiles warning-free in every C and C++ standard an
# embedder may use, with the *_INIT macros expanded (C89 to C++20, gcc and
# clang when present; C++ with -Wold-style-cast and -Wzero-as-null-pointer-constant).
set -euo pipefail
include=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/use.c" <<'C'
#include "faultline.h"
#include "faultline_verify.h"
int main(void) {
  fl_pack_options p = FL_PACK_OPTIONS_INIT;
  fl_scanner_options s = FL_SCANNER_OPTIONS_INIT;
  fl_diagnoser_options d = FL_DIAGNOSER_OPTIONS_INIT;
  return (int)(p.struct_size + s.struct_size + d.struct_size == 0);
}
C
cat >"$work/use.cpp" <<'CPP'
#include "faultline.h"
#include "faultline_verify.h"
int main() {
  fl_pack_options p = FL_PACK_OPTIONS_INIT;
  fl_scanner_options s = FL_SCANNER_OPTIONS_INIT;
  fl_diagnoser_options d = FL_DIAGNOSER_OPTIONS_INIT;
  return p.struct_size + s.struct_size + d.struct_size == 0 ? 1 : 0;
}
CPP
checked=0
for cc in gcc clang; do
  command -v "$cc" >/dev/null || continue
  for std in c89 c99 c11 c17; do
    "$cc" -std=$std -pedantic -Wall -Wextra -Werror -I"$include" -c "$work/use.c" -o "$work/c.o"
    checked=$((checked + 1))
  done
done
for cxx in g++ clang++; do
  command -v "$cxx" >/dev/null || continue
  for std in c++98 c++11 c++17 c++20; do
    extra=-Wold-style-cast
    [ "$std" = c++98 ] || extra="$extra -Wzero-as-null-pointer-constant"
    "$cxx" -std=$std -pedantic -Wall -Wextra $extra -Werror -I"$include" -c "$work/use.cpp" -o "$work/cpp.o"
    checked=$((checked + 1))
  done
done
[ "$checked" -ge 8 ] || { echo "FAIL: only $checked compilers/standards available" >&2; exit 1; }
echo "faultline.h: $checked compiler/standard combinations warning-free"
