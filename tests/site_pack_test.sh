#!/usr/bin/env bash
# Site packs from the command line: flc checks a site library against the
# pack it stands over (each refusal names the file and line), and faultline
# stacks a site pack over the embedded one.
set -u
flc=$1 faultline=$2 base=$3 example=$4 log=$5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$flc" compile "$example" --base "$base" -o "$work/site.flpack" 2>"$work/ok.err" || { cat "$work/ok.err"; fail "the example does not compile against the base"; }

# A copy of the example with one thing broken, compiled against the base:
# must fail and say what, where.
refused() {  # refused NAME EXPECTED-MESSAGE EDIT-COMMAND...
  local name=$1 want=$2
  shift 2
  rm -rf "$work/$name" && cp -r "$example" "$work/$name"
  (cd "$work/$name" && "$@") || fail "$name: the edit failed"
  if "$flc" compile "$work/$name" --base "$base" -o "$work/$name.flpack" 2>"$work/$name.err"; then
    fail "$name: compiled, but should be refused"
  fi
  grep -q -- "$want" "$work/$name.err" || fail "$name: expected '$want' in: $(cat "$work/$name.err")"
  grep -qE '\.yaml:[0-9]+:[0-9]+: error' "$work/$name.err" || fail "$name: no file:line:col in: $(cat "$work/$name.err")"
}
refused clash "also an entry of the base pack" sed -i '/^overrides: true/d' scheduler/slurm-prolog-failed.yaml
refused missing_override "has no entry 'site-nhc-health-check-failed' to replace" \
  sed -i 's/^id: site-nhc-health-check-failed/id: site-nhc-health-check-failed\noverrides: true/' hardware/site-nhc-health-check-failed.yaml
refused missing_disable "disables 'no-such-entry'" sed -i 's/- id: host-cpu-thermal-throttle/- id: no-such-entry/' library.yaml
refused dangling_link "causes names 'no-such-entry'" \
  sed -i 's/^causes: \[slurm-prolog-failed\]/causes: [no-such-entry]/' hardware/site-nhc-health-check-failed.yaml
refused wrong_base "not 'someone-else'" sed -i 's/^  name: faultline/  name: someone-else/' library.yaml
refused old_base "outside base.versions" sed -i 's/versions: ">=0.1.0,<0.2.0"/versions: ">=0.2.0"/' library.yaml
# overrides: true outside a site library is an error too.
rm -rf "$work/plain" && cp -r "$example" "$work/plain" && sed -i '/^base:/,$d' "$work/plain/library.yaml"
"$flc" test "$work/plain" >"$work/plain.out" 2>&1 && fail "overrides without a base library was accepted"
grep -q "overrides: true needs a base library" "$work/plain.out" || fail "plain: $(cat "$work/plain.out")"

# faultline: the site pack alone stands over the embedded pack; the report
# names the site's entry as the cause and says where each entry came from.
"$faultline" diagnose --json --pack "$work/site.flpack" "$log" >"$work/r.json"
[ $? -eq 0 ] || fail "diagnose with the site pack did not report a failure"
python3 - "$work/r.json" <<'PY' || fail "report: $(cat "$work/r.json")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["root"]["id"] == "site-nhc-health-check-failed" and r["root"]["pack"] == "example-site", r["root"]
others = {f["id"]: f["pack"] for f in r["collateral"] + r["findings"]}
assert others.get("slurm-prolog-failed") == "example-site", others
assert "host-cpu-thermal-throttle" not in others, others
assert [l["name"] for l in r["pack"]["layers"]] == ["faultline", "example-site"], r["pack"]
PY
# The same stack spelled out, and through FAULTLINE_PACK.
"$faultline" diagnose --summary --pack default --pack "$work/site.flpack" "$log" | grep -q "site-nhc-health-check-failed\|Node health check" ||
  fail "--pack default --pack site: $("$faultline" diagnose --summary --pack default --pack "$work/site.flpack" "$log")"
FAULTLINE_PACK="default:$work/site.flpack" "$faultline" pack-info >"$work/info.txt" || fail "pack-info of FAULTLINE_PACK"
grep -q "library         example-site" "$work/info.txt" || fail "pack-info: $(cat "$work/info.txt")"
grep -q "^stack           2 packs" "$work/info.txt" || fail "pack-info: $(cat "$work/info.txt")"
# Ours alone still reads the throttling line the site turned off.
"$faultline" scan "$log" | grep -q host-cpu-thermal-throttle || fail "the embedded pack alone no longer reads the throttle line"
# A site pack over a library it does not stand over is refused, alone or stacked.
rm -rf "$work/other" && cp -r "$example" "$work/other" && sed -i 's/^  name: faultline/  name: someone-else/' "$work/other/library.yaml"
"$flc" compile "$work/other" -o "$work/other.flpack" 2>/dev/null || fail "the other site library does not compile without --base"
"$faultline" diagnose --pack "$work/other.flpack" "$log" >/dev/null 2>"$work/other.err"
[ $? -eq 2 ] || fail "a site pack over another library was stacked over ours"
grep -q "over the library 'someone-else'" "$work/other.err" || fail "other: $(cat "$work/other.err")"
"$faultline" diagnose --pack default --pack "$work/other.flpack" "$log" >/dev/null 2>"$work/other2.err"
[ $? -eq 2 ] || fail "a stack with a site pack over another library was accepted"
grep -q "cannot stack" "$work/other2.err" || fail "other2: $(cat "$work/other2.err")"
# faultline run reloads a pack file replaced during the run: the output after
# the change is read with the new pack, what was found before is kept.
cp "$base" "$work/live.flpack"
"$faultline" run --report "$work/run.json" --pack "$work/live.flpack" -- sh -c '
  echo "gpu-07:123:456 [0] transport/net_ib.cc:839 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<5678> with error 12, opcode 0, len 0, vendor err 129"
  sleep 3
  echo "error: prolog failed: rc:1 output:ERROR:  nhc:  Health check failed:  check_gpu_count:  Expected 8 and found 7"
  exit 3' >/dev/null 2>"$work/run.err" &
run=$!
sleep 1
cp "$work/site.flpack" "$work/live.tmp" && mv "$work/live.tmp" "$work/live.flpack"
wait $run
[ $? -eq 3 ] || fail "run: not the command's status: $(cat "$work/run.err")"
grep -q "reloaded 1 time: example-site" "$work/run.err" || fail "run did not say it reloaded: $(cat "$work/run.err")"
python3 - "$work/run.json" <<'PY' || fail "run report: $(cat "$work/run.json")"
import json, sys
r = json.load(open(sys.argv[1]))
ids = {r["root"]["id"]} | {f["id"] for f in r["collateral"] + r["findings"]}
assert "site-nhc-health-check-failed" in ids, ids        # known only to the new pack, printed after the change
assert "nccl-ib-transport-retry-exceeded" in ids, ids    # found before the change, kept
assert [l["name"] for l in r["pack"]["layers"]] == ["faultline", "example-site"], r["pack"]
PY
echo "site_pack: ok"
