#!/usr/bin/env python3
"""Check faultline's diagnoses of the failure lab against what each scenario injected.

usage: check_lab.py --faultline BIN [--captures DIR] [--scenarios FILE] [--report-only]
                    [--write-eval DIR] [--only NAME...]

Runs `BIN diagnose --json` on every capture (a file, or for directory layouts the directory)
and compares verdict, root.type and root.rank with scenarios.json (in the layouts a scenario
lists under rank_may_be_unknown, no rank is accepted too unless the capture's failure table reports the
injected rank alone: otherwise the log cannot say which rank printed the error). --captures defaults to the frozen captures in tests/lab/captured, so no torch
is needed. Prints one row per capture and
the totals; exits 1 on any mismatch or missing capture (0 with --report-only).
--write-eval DIR also writes DIR/labels.jsonl, DIR/cases/ and DIR/healthy/ in the format of
../shared/eval, for ../shared/tools/score.py; initiating_rank is the rank the capture establishes
(null when it cannot, as a reader of the log would label it), injected_rank the injected one. Standard library only.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def capture_path(captures, scenario, layout):
    for p in (os.path.join(captures, scenario, layout + ".log"), os.path.join(captures, scenario, layout)):
        if os.path.exists(p):
            return p
    return None


def diagnose(binary, path):
    try:
        p = subprocess.run([binary, "diagnose", "--json", path], capture_output=True, timeout=120)
    except subprocess.TimeoutExpired:
        return None, "timeout"
    try:
        return json.loads(p.stdout.decode("utf-8", "replace")), None
    except ValueError:
        return None, f"exit {p.returncode}: {p.stderr.decode('utf-8', 'replace').strip()[:120]}"


# A torchrun failure-table entry: "rank : 3 (local_rank: 1)" then "exitcode : 1 (pid: 123)".
TABLE_ENTRY = re.compile(r"^\s*rank\s*:\s*(\d+)\s*\(local_rank:\s*\d+\)\s*\n\s*exitcode\s*:\s*(-?\d+)", re.M)


def capture_files(path):
    if os.path.isfile(path):
        return [path]
    return sorted(os.path.join(d, f) for d, _, fs in os.walk(path) for f in fs)


def reported_alone(path, rank):
    """True when a failure table lists `rank` and no other rank: the agent saw that worker alone exit
    with an error (it stops the others with SIGTERM, which its table does not list)."""
    for f in capture_files(path):
        with open(f, encoding="utf-8", errors="replace") as fh:
            failed = {int(r) for r, _ in TABLE_ENTRY.findall(fh.read())}
        if failed == {rank}:
            return True
    return False


def established_rank(s, layout, path):
    """The rank the capture itself establishes. In a layout whose error lines carry no rank
    (rank_may_be_unknown) that is the injected rank only when a failure table reports it alone;
    otherwise (several ranks failing in one monitoring interval, or the injected rank stopped by the
    agent and absent from the table) the log cannot say which rank printed the error: None."""
    rank = s["expect"]["rank"]
    if rank is not None and layout in s.get("rank_may_be_unknown", []) and not reported_alone(path, rank):
        return None
    return rank


def show(v):
    return "-" if v is None else str(v)


def write_eval(out, rows):
    """Failures become labeled cases, healthy single-file captures healthy logs (score.py --healthy)."""
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.join(out, "cases"))
    os.makedirs(os.path.join(out, "healthy"))
    with open(os.path.join(out, "labels.jsonl"), "w") as labels:
        for s, layout, path in rows:
            case = f"lab-{s['name']}-{layout}"
            exp = s["expect"]
            if exp["verdict"] == "no-failure":
                if os.path.isfile(path):  # score.py reads only *.log files as healthy logs
                    shutil.copyfile(path, os.path.join(out, "healthy", case + ".log"))
                continue
            if os.path.isdir(path):
                name = case
                shutil.copytree(path, os.path.join(out, "cases", name))
            else:
                name = case + ".log"
                shutil.copyfile(path, os.path.join(out, "cases", name))
            injected = (f"train.py --break {s['break']} --break-rank {s['break_rank']}" if s.get("break")
                        else "run_lab.py setup")
            labels.write(json.dumps({
                "id": case, "file": f"cases/{name}", "url": f"tests/lab/scenarios.json#{s['name']}",
                "class": exp["type"], "collateral": s.get("collateral", []),
                "initiating_rank": established_rank(s, layout, path), "injected_rank": exp["rank"],
                "evidence": f"Injected in the faultline failure lab ({injected}; layout {layout}). "
                            + s.get("why", ""),
                "confidence": "high", "fix": ""}) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--faultline", required=True, help="the faultline binary")
    ap.add_argument("--captures", default=os.path.join(HERE, "captured"))
    ap.add_argument("--scenarios", default=os.path.join(HERE, "scenarios.json"))
    ap.add_argument("--only", nargs="+", metavar="NAME", help="scenarios (or scenario/layout) to check")
    ap.add_argument("--report-only", action="store_true", help="always exit 0")
    ap.add_argument("--write-eval", metavar="DIR", help="also write labels.jsonl + cases for score.py")
    args = ap.parse_args()
    spec = json.load(open(args.scenarios))
    manifest_file = os.path.join(args.captures, "manifest.json")
    skipped = {}
    if os.path.exists(manifest_file):
        for r in json.load(open(manifest_file))["runs"]:
            if r["status"] == "skipped":
                skipped[(r["scenario"], r["layout"])] = r.get("reason", "")
    head = f"{'scenario':16s} {'layout':9s} {'expected':36s} {'got':36s} ok"
    print(head)
    print("-" * len(head))
    n = ok = n_type = n_rank = n_skip = 0
    found = []
    for s in spec["scenarios"]:
        for layout in s["layouts"]:
            if args.only and s["name"] not in args.only and f"{s['name']}/{layout}" not in args.only:
                continue
            exp = s["expect"]
            path = capture_path(args.captures, s["name"], layout)
            # A capture whose failure table does not report the injected rank alone (see the
            # scenario's "why") cannot say which rank printed the root error: no rank is then the
            # honest answer, a wrong rank never is.
            unknown_ok = path is not None and exp["rank"] is not None and established_rank(s, layout, path) is None
            want = (f"{exp['verdict']}" if exp["verdict"] == "no-failure"
                    else f"{exp['type']} rank {show(exp['rank'])}" + (" (or -)" if unknown_ok else ""))
            if path is None and (s["name"], layout) in skipped:
                n_skip += 1
                print(f"{s['name']:16s} {layout:9s} {want:36s} {'(skipped: ' + skipped[(s['name'], layout)] + ')'}")
                continue
            n += 1
            if path is None:
                print(f"{s['name']:16s} {layout:9s} {want:36s} {'(no capture)':36s} NO")
                continue
            found.append((s, layout, path))
            rep, err = diagnose(args.faultline, path)
            root = (rep or {}).get("root") or {}
            verdict = (rep or {}).get("verdict")
            type_ok = verdict == exp["verdict"] and (exp["verdict"] == "no-failure" or root.get("type") == exp["type"])
            rank_ok = verdict == exp["verdict"] and (root.get("rank") == exp["rank"]
                                                     or (unknown_ok and root.get("rank") is None))
            n_type += type_ok
            n_rank += rank_ok
            ok += type_ok and rank_ok
            got = (err or (verdict if verdict == "no-failure"
                           else f"{root.get('type')} rank {show(root.get('rank'))}"
                           + ("" if verdict == "failure" else f" ({verdict})")))
            print(f"{s['name']:16s} {layout:9s} {want:36s} {got:36s} {'ok' if type_ok and rank_ok else 'NO'}")
    print("-" * len(head))
    print(f"{ok}/{n} ok (verdict and type right {n_type}/{n}, verdict and rank right {n_rank}/{n})" + (f", {n_skip} skipped" if n_skip else ""))
    if args.write_eval:
        write_eval(args.write_eval, found)
        print(f"eval cases written to {args.write_eval}")
    return 0 if args.report_only or ok == n else 1


if __name__ == "__main__":
    sys.exit(main())
