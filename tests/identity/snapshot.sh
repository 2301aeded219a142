#!/usr/bin/env bash
# Writes everything the build says about fixed inputs into OUT: the default
# pack's bytes and dump, every report of every log the tests and ../shared
# hold (JSON, text, summary, GitHub annotations, partial/merge), raw scan
# events, each entry's page, and flc's literal choice.
#
# Two snapshots of two builds compare with `diff -r`: how a change that
# promises "behaviour unchanged" proves it (tests/identity/README.md).
#
# usage: tests/identity/snapshot.sh BUILD_DIR OUT_DIR
set -uo pipefail
build=$(realpath "$1")
out=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
shared=$(realpath "$src/../shared" 2>/dev/null || true)
fl=$build/faultline
flc=$build/compiler/flc
mkdir -p "$out"/reports "$out"/entries "$out"/scan
out=$(realpath "$out")

sha256sum <"$build/default.flpack" >"$out/default.flpack.sha256"
"$flc" dump "$build/default.flpack" >"$out/default.flpack.dump" 2>&1
"$flc" literals "$src/signatures" >"$out/literals.txt" 2>&1
"$fl" list >"$out/list.txt" 2>&1

# Every entry as a page, in both forms.
"$fl" list | awk 'NR > 1 && $1 ~ /^[a-z0-9-]+$/ { print $1 }' | while read -r id; do
  "$fl" explain "$id" >"$out/entries/$id.txt" 2>&1
  "$fl" explain --markdown "$id" >"$out/entries/$id.md" 2>&1
done

# One name per input: its path with '/' turned into '__'.
report() {
  local input=$1 name=$2
  {
    "$fl" diagnose --json "$input"; echo "exit $?"
  } >"$out/reports/$name.json" 2>&1
  { "$fl" diagnose "$input"; echo "exit $?"; } >"$out/reports/$name.txt" 2>&1
  { "$fl" diagnose --summary "$input"; echo "exit $?"; } >"$out/reports/$name.summary" 2>&1
  { "$fl" diagnose --format github "$input"; echo "exit $?"; } >"$out/reports/$name.github" 2>&1
}

cd "$src"
inputs=()
while IFS= read -r f; do inputs+=("$f"); done < <(
  find tests/golden tests/data/logs -type f \( -name '*.log' -o -name '*.zst' -o -name '*.gz' -o -name '*.txt' \) | sort)
for d in tests/golden/multirank/*/; do inputs+=("${d%/}"); done
if [ -d "$shared" ]; then
  while IFS= read -r f; do inputs+=("$f"); done < <(
    find "$shared/eval/cases" "$shared/corpus/failing" "$shared/corpus/healthy" -type f -name '*.log' | sort)
fi
for input in "${inputs[@]}"; do
  name=${input#"$shared/"}
  name=shared__${name//\//__}
  case $input in "$shared"/*) ;; *) name=${input//\//__} ;; esac
  report "$input" "$name"
done

# Raw events of the small logs (framing fields, captures, truncation).
for f in tests/data/logs/*; do
  [ -f "$f" ] || continue
  { "$fl" scan "$f"; echo "exit $?"; } >"$out/scan/$(basename "$f").txt" 2>&1
done

# Partials of each multi-node job, merged: the merge path and its report.
for d in tests/golden/multirank/*/; do
  job=$(basename "$d")
  parts=()
  for f in "$d"*.log; do
    [ -f "$f" ] || continue
    # A fixed path: the merged report names its partials.
    p=${TMPDIR:-/tmp}/faultline-identity/$job/$(basename "$f").flpart
    mkdir -p "$(dirname "$p")"
    "$fl" partial -o "$p" "$f" >/dev/null 2>&1
    parts+=("$p")
  done
  [ ${#parts[@]} -gt 0 ] || continue
  { "$fl" merge --json "${parts[@]}"; echo "exit $?"; } >"$out/reports/merge__$job.json" 2>&1
  { "$fl" merge "${parts[@]}"; echo "exit $?"; } >"$out/reports/merge__$job.txt" 2>&1
done
echo "snapshot: $(find "$out" -type f | wc -l) files in $out"
