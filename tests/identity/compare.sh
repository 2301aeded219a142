#!/usr/bin/env bash
# Builds BASE_REV (a commit before a "behaviour unchanged" change) in a
# temporary worktree, snapshots it and the current build, and diffs the two.
# Exit 0 when every output is byte-identical.
#
# usage: tests/identity/compare.sh BASE_REV [BUILD_DIR]   (BUILD_DIR default: build)
set -euo pipefail
base=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(realpath "${2:-$src/build}")
work=$(mktemp -d)
trap 'git -C "$src" worktree remove --force "$work/tree" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git -C "$src" worktree add --detach "$work/tree" "$base" >/dev/null
cmake -S "$work/tree" -B "$work/tree/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFAULTLINE_BUILD_TESTS=OFF >/dev/null
cmake --build "$work/tree/build" -j"$(nproc)" --target faultline_cli flc faultline_default_pack >/dev/null
# The snapshot script of this tree runs over both builds: the same questions.
"$src/tests/identity/snapshot.sh" "$work/tree/build" "$work/before" | sed 's/^/before: /'
"$src/tests/identity/snapshot.sh" "$build" "$work/after" | sed 's/^/after:  /'
if diff -r "$work/before" "$work/after" >"$work/diff"; then
  echo "identical: $(find "$work/after" -type f | wc -l) outputs of $base and of this tree agree byte for byte"
else
  head -100 "$work/diff"
  echo "DIFFERENT: $(grep -c '^diff ' "$work/diff" || true) files differ" >&2
  exit 1
fi
