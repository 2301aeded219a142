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
[ "$bad" = 0 ] || exit 1
echo "layers: every include of libcore/ and compiler/ points down"
