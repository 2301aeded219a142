#!/usr/bin/env bash
# libcore's folders are layers (libcore/CMakeLists.txt): a file includes
# headers of its own folder and of the folders below it, never above.
#   common < platform < match < diagnose < report < api
# compiler/ may include common/ and match/ only (what flc shares).
set -euo pipefail
root=$1
layers=(common platform match diagnose report api)
rank() { local i; for i in "${!layers[@]}"; do [ "${layers[$i]}" = "$1" ] && { echo "$i"; return; }; done; echo -1; }
bad=0
check() {  # file, its rank, highest rank it may include
  local file=$1 max=$2 inc dir r
  while IFS= read -r inc; do
    if [[ $inc == ../* ]]; then
      echo "FAIL: ${file#"$root"/} includes $inc (include by the path from libcore/, not around it)" >&2
      bad=1
    fi
    dir=${inc%%/*}
    [ "$dir" = "$inc" ] && continue  # a header of the same folder or a system/generated one
    r=$(rank "$dir")
    [ "$r" -lt 0 ] && continue
    if [ "$r" -gt "$max" ]; then
      echo "FAIL: ${file#"$root"/} includes $inc (layer $dir is above it)" >&2
      bad=1
    fi
  done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$file")
}
for layer in "${layers[@]}"; do
  for f in "$root/libcore/$layer"/*.h "$root/libcore/$layer"/*.cpp; do
    [ -f "$f" ] && check "$f" "$(rank "$layer")"
  done
done
for f in "$root"/compiler/*.h "$root"/compiler/*.cpp; do check "$f" "$(rank match)"; done
# libcore/verify/ is a library of its own (libfaultline_verify, with libsodium):
# it sees only the public headers, and no layer of libfaultline holds crypto.
for f in "$root"/libcore/verify/*.h "$root"/libcore/verify/*.cpp; do
  [ -f "$f" ] || continue
  while IFS= read -r inc; do
    case $inc in faultline.h | faultline_verify.h) ;; *)
      echo "FAIL: ${f#"$root"/} includes \"$inc\" (the verifier sees only the public headers)" >&2
      bad=1 ;;
    esac
  done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
done
for layer in "${layers[@]}"; do
  if grep -ln '^#include <sodium' "$root/libcore/$layer"/*.h "$root/libcore/$layer"/*.cpp 2>/dev/null; then
    echo "FAIL: libcore/$layer includes libsodium: cryptography belongs to libcore/verify/" >&2
    bad=1
  fi
done
[ "$bad" = 0 ] || exit 1
echo "layers: every include of libcore/ and compiler/ points down; libcore/verify/ sees only the public headers"
