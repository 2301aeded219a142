#!/usr/bin/env bash
# flc end to end on the real signatures/: the examples pass, builds are
# byte-identical, dump and stats are readable, lint is clean, and a broken
# example makes `flc test` fail naming its file and line.
set -euo pipefail
flc=$1
sigs=$2
# Sanitizer builds (third argument "sanitized") skip the checks that only
# repeat a whole-library compile for another input (determinism, the second
# broken example, vocabulary lint, the README's entry): under ASan each costs
# two minutes and exercises no code the others do not; the plain builds run all.
sanitized=${3:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$flc" test "$sigs" >"$work/test.out" 2>&1 || { cat "$work/test.out"; fail "flc test on signatures/"; }
grep -q " 0 failure(s)" "$work/test.out" || fail "flc test summary: $(cat "$work/test.out")"

"$flc" compile "$sigs" -o "$work/a.flpack" 2>/dev/null
if [ "$sanitized" != sanitized ]; then
  "$flc" compile "$sigs" -o "$work/b.flpack" --jobs 1 2>/dev/null
  cmp -s "$work/a.flpack" "$work/b.flpack" || fail "two compiles of the same sources differ"
fi

"$flc" dump "$work/a.flpack" >"$work/dump.txt"
for f in $(find "$sigs" -name '*.yaml' -not -path '*/framing/*' -not -path '*/taxonomies/*' -not -name library.yaml | sort); do
  id=$(basename "$f" .yaml)
  grep -q "^entry [0-9]*: $id\$" "$work/dump.txt" || fail "dump lacks entry $id"
done
for f in $(find "$sigs/framing" -name '*.yaml' | sort); do
  id=$(basename "$f" .yaml)
  grep -q "^framing [0-9]*: $id\$" "$work/dump.txt" || fail "dump lacks framing $id"
done
grep -q "^dfa 0:" "$work/dump.txt" || fail "dump lacks the DFA section"

"$flc" stats "$work/a.flpack" >"$work/stats.txt"
grep -Eq "^0 +[0-9]+ +[0-9]+ " "$work/stats.txt" || fail "stats lacks states per DFA: $(cat "$work/stats.txt")"

"$flc" lint --strict "$sigs" >"$work/lint.out" 2>&1 || { cat "$work/lint.out"; fail "flc lint --strict"; }

# A must-match line that matches nothing, inserted as the first example.
cp -r "$sigs" "$work/broken"
target="$work/broken/memory/cuda-out-of-memory.yaml"
line=$(awk '/^  match:/ { print NR + 1; exit }' "$target")
[ -n "$line" ] || fail "cannot find tests.match in $target"
awk -v at="$line" 'NR == at { print "    - \"this line names no failure at all\"" } { print }' "$target" >"$target.new"
mv "$target.new" "$target"
if "$flc" test "$work/broken" >"$work/broken.out" 2>&1; then fail "flc test passed with a broken example"; fi
grep -q "cuda-out-of-memory.yaml:$line:[0-9]*: error: \[cuda-out-of-memory\] must-match line does not match" "$work/broken.out" ||
  fail "broken example not reported at $target:$line: $(cat "$work/broken.out")"

if [ "$sanitized" != sanitized ]; then
# A must-not-match line that does match.
cp -r "$sigs" "$work/broken2"
target="$work/broken2/memory/cuda-out-of-memory.yaml"
line=$(awk '/^  no_match:/ { print NR + 1; exit }' "$target")
awk -v at="$line" 'NR == at { print "    - \"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.2 GiB is free.\"" } { print }' "$target" >"$target.new"
mv "$target.new" "$target"
if "$flc" test "$work/broken2" >"$work/broken2.out" 2>&1; then fail "flc test passed with a matching no_match line"; fi
grep -q "cuda-out-of-memory.yaml:$line:[0-9]*: error: \[cuda-out-of-memory\] must-not-match line matches" "$work/broken2.out" ||
  fail "matching no_match not reported at line $line: $(cat "$work/broken2.out")"

# Lint checks signatures against the words the diagnosis reads
# (libcore/common/vocabulary.h): a capture named `culprit_rank` that holds a
# size, and a generic-only pattern name in a specific entry.
cp -r "$sigs" "$work/vocab"
target="$work/vocab/memory/cuda-out-of-memory.yaml"
sed -i 's/(?<requested>/(?<culprit_rank>/; s/{requested}/{culprit_rank}/g; s/requested:/culprit_rank:/; s/- name: cuda_error_oom/- name: traceback_header/' "$target"
"$flc" lint "$work/vocab" >"$work/vocab.out" 2>&1 || true
grep -q "cuda-out-of-memory.yaml:[0-9]*:[0-9]*: warning: \[cuda-out-of-memory\] capture 'culprit_rank' is read by the diagnosis as a number" "$work/vocab.out" ||
  fail "lint did not flag a non-numeric culprit_rank: $(cat "$work/vocab.out")"
grep -q "pattern name 'traceback_header' means something to the diagnosis only in entries tagged generic" "$work/vocab.out" ||
  fail "lint did not flag a generic-only pattern name: $(cat "$work/vocab.out")"
if "$flc" lint --strict "$work/vocab" >/dev/null 2>&1; then fail "flc lint --strict passed with vocabulary warnings"; fi
fi

# Lint warns when the part of an example a pattern matched states a rank
# ("rank 3", "localRank 5") that no rank capture (rank, local_rank, comm_rank,
# culprit_rank, failed_rank, failed_local_rank, peer_rank) spans; a rank
# outside the match ("[rank5]:" in front) is the framing's business. A
# one-entry library, with the pattern given as $1.
rank_entry() {
  cat <<YAML
id: widget-sync-failed
title: "Widget sync failed on a rank (flc lint test entry)"
category: code
type: other
tags: [test]
severity: high
affects: [nothing real]
summary: "A made-up failure whose message states the rank that printed it."
mechanism: "None; the entry exists to test flc lint."
symptoms:
  - observe: "Widget sync failed on rank 3"
    why: "The test message"
confirm:
  - "Only in tests"
root_cause: "None."
fix:
  steps:
    - "Nothing"
  commands:
    - run: "true"
      explain: "Nothing to do"
verify:
  - run: "true"
    expect: "exit 0"
prevention:
  - "Nothing"
fingerprint: "Widget sync failed"
references:
  - title: "faultline signatures README"
    url: "https://example.com/faultline"
related: []
action: stop
role: cause
causes: []
patterns:
  - name: widget_sync
    regex: '$1'
    source: "made up for tests/flc_cli_test.sh"
tests:
  match:
    - "Widget sync failed on rank 3"
    - "[rank5]: Widget sync failed on localRank 5"
  no_match:
    - "Widget sync succeeded on rank 3"
    - "Widget sync failed"
YAML
}
mkdir -p "$work/rank/code"
target="$work/rank/code/widget-sync-failed.yaml"
rank_entry 'Widget sync failed on (?:rank|localRank) \d+' >"$target"
"$flc" test "$work/rank" >"$work/rank.out" 2>&1 || { cat "$work/rank.out"; fail "flc test on the rank lint entry"; }
"$flc" lint "$work/rank" >"$work/rank.out" 2>&1 || true
for said in "rank 3" "localRank 5"; do
  grep -q "widget-sync-failed.yaml:[0-9]*:[0-9]*: warning: \[widget-sync-failed\] pattern 'widget_sync' matches '$said' but captures no rank there" "$work/rank.out" ||
    fail "lint did not flag the uncaptured '$said': $(cat "$work/rank.out")"
done
[ "$(grep -c "pattern 'widget_sync' matches" "$work/rank.out")" = 2 ] ||
  fail "lint flagged a rank outside the matched text: $(cat "$work/rank.out")"
if "$flc" lint --strict "$work/rank" >/dev/null 2>&1; then fail "flc lint --strict passed with an uncaptured rank"; fi
rank_entry 'Widget sync failed on (?:rank (?<rank>\d+)|localRank (?<local_rank>\d+))' >"$target"
"$flc" test "$work/rank" >"$work/rank.out" 2>&1 || { cat "$work/rank.out"; fail "flc test on the captured rank lint entry"; }
"$flc" lint --strict "$work/rank" >"$work/rank.out" 2>&1 || fail "lint still warns once the ranks are captured: $(cat "$work/rank.out")"

# A corrupted pack is refused with a reason and exit status 2.
cp "$work/a.flpack" "$work/bad.flpack"
printf 'X' | dd of="$work/bad.flpack" bs=1 seek=1000 conv=notrunc status=none
set +e
"$flc" dump "$work/bad.flpack" >/dev/null 2>"$work/bad.err"
rc=$?
set -e
[ "$rc" = 2 ] || fail "dump of a corrupt pack exited $rc"
grep -q "hash mismatch" "$work/bad.err" || fail "corrupt pack message: $(cat "$work/bad.err")"
if [ "$sanitized" != sanitized ]; then
# The README's complete example is a real entry: it must compile and pass
# in place of the file it abridges.
cp -r "$sigs" "$work/readme"
awk '/^```yaml$/ { on = 1; next } /^```$/ { if (on) exit } on { print }' "$sigs/README.md" \
  >"$work/readme/network/nccl-ib-transport-retry-exceeded.yaml"
"$flc" test "$work/readme" >"$work/readme.out" 2>&1 || { cat "$work/readme.out"; fail "the example in signatures/README.md"; }
fi

echo "flc cli: all checks passed"
