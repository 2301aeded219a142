#!/usr/bin/env python3
"""Golden tests: the diagnosis of real logs against what they mean.

- eval/: labeled program output from public issue threads (labels.jsonl: the
  initiating class and rank, written by people reading the thread);
- corpus/: full-length logs of failed runs with the cause buried deep;
- healthy/: successful runs that must not get a failure verdict (plus every
  log of ../shared/corpus/healthy when that directory exists);
- multirank/: jobs built from real lines (build_cases.py) with expect.json
  written by hand.
Prints the accuracy table, then checks the bars of the diagnosis issue.
"""
import collections
import json
import os
import sys
import unittest

import flrun

HERE = flrun.HERE
COLLATERAL_CLASSES = {"nccl_timeout", "nccl_remote_error"}


def read_lines(path):
    with open(path) as f:
        return [line.split("#")[0].split()[0] for line in f if line.split("#")[0].strip()]


class Eval(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.rows = flrun.labels(os.path.join(HERE, "eval", "labels.jsonl"))
        cls.reports = {r["id"]: flrun.report(os.path.join(HERE, "eval", os.path.basename(r["file"]))) for r in cls.rows}
        # Cases whose initiating failure is not in the log at all (the label
        # comes from the rest of the thread): inconclusive is right for them.
        cls.cause_elsewhere = set(read_lines(os.path.join(HERE, "eval", "cause-not-in-log.txt")))

    def test_accuracy_table(self):
        per = collections.defaultdict(lambda: [0, 0])
        ok_type = ok_rank = n_rank = 0
        misses = []
        for r in self.rows:
            root = self.reports[r["id"]]["root"] or {}
            per[r["class"]][1] += 1
            if root.get("type") == r["class"]:
                ok_type += 1
                per[r["class"]][0] += 1
            else:
                misses.append(f"{r['id']}: {r['class']} -> {root.get('type')} ({self.reports[r['id']]['verdict']})")
            if r.get("initiating_rank") is not None:
                n_rank += 1
                ok_rank += root.get("rank") == r["initiating_rank"]
        print("\nclass                      correct/cases", file=sys.stderr)
        for k in sorted(per):
            print(f"{k:26s} {per[k][0]}/{per[k][1]}", file=sys.stderr)
        for m in misses:
            print("miss", m, file=sys.stderr)
        n = len(self.rows)
        print(f"root type {ok_type}/{n} = {100 * ok_type / n:.1f}%, initiating rank {ok_rank}/{n_rank}", file=sys.stderr)
        self.assertGreaterEqual(ok_type / n, 0.90)
        self.assertGreaterEqual(ok_rank / n_rank, 0.90)

    def test_collateral_never_root_when_cause_in_log(self):
        for r in self.rows:
            rep = self.reports[r["id"]]
            root = rep["root"] or {}
            # The label itself may name a collateral or wrapper type (a
            # RendezvousClosedError alone): then that entry is the answer.
            if r["class"] in COLLATERAL_CLASSES or r["id"] in self.cause_elsewhere or root.get("type") == r["class"]:
                continue
            with self.subTest(case=r["id"]):
                self.assertNotIn(root.get("role"), ("collateral", "wrapper"), f"{r['id']} root {root.get('id')}")
                self.assertNotEqual(rep["verdict"], "inconclusive")


class FailingCorpus(unittest.TestCase):
    def test_every_log_gets_its_type(self):
        rows = flrun.labels(os.path.join(HERE, "corpus", "labels.jsonl"))
        for r in rows:
            with self.subTest(log=r["file"]):
                rep = flrun.report(os.path.join(HERE, "corpus", r["file"]))
                self.assertEqual(rep["verdict"], "failure")
                self.assertEqual((rep["root"] or {}).get("type"), r["class"])
                if r.get("initiating_rank") is not None:
                    self.assertEqual(rep["root"]["rank"], r["initiating_rank"])


class Healthy(unittest.TestCase):
    def logs(self):
        dirs = [os.path.join(HERE, "healthy")]
        shared = os.path.join(flrun.SHARED, "corpus", "healthy")
        if os.path.isdir(shared):
            dirs.append(shared)
        for d in dirs:
            for f in sorted(os.listdir(d)):
                if f.endswith(".log"):
                    yield os.path.join(d, f)

    def test_no_failure_verdict(self):
        n = 0
        for path in self.logs():
            with self.subTest(log=path):
                rep = flrun.report(path)
                self.assertEqual(rep["verdict"], "no-failure", (rep["root"] or {}).get("id"))
                self.assertIsNone(rep["root"])
                n += 1
        self.assertGreater(n, 0)


class MultiRank(unittest.TestCase):
    def test_jobs(self):
        base = os.path.join(HERE, "multirank")
        cases = sorted(d for d in os.listdir(base) if os.path.isdir(os.path.join(base, d)))
        self.assertGreaterEqual(len(cases), 5)
        for case in cases:
            with open(os.path.join(base, case, "expect.json")) as f:
                want = json.load(f)
            with self.subTest(case=case):
                rep = flrun.report(os.path.join(base, case))
                root = rep["root"] or {}
                self.assertEqual(rep["verdict"], want["verdict"])
                self.assertEqual(root.get("type"), want["type"])
                self.assertEqual(root.get("rank"), want["rank"])
                for key in ("id", "host"):
                    if key in want:
                        self.assertEqual(root.get(key), want[key])
                got_coll = {c["type"] for c in rep["collateral"]}
                for t in want.get("collateral_types", []):
                    self.assertIn(t, got_coll)
                if want.get("collateral_ranks"):
                    timeouts = [c for c in rep["collateral"] if c["type"] == "nccl_timeout"]
                    self.assertEqual(sorted(set(sum((c["ranks"] for c in timeouts), []))), want["collateral_ranks"])
                if "retry" in want:
                    self.assertEqual(rep["action"]["retry"], want["retry"])
                if want.get("missing_evidence_names_rank") is not None:
                    text = " ".join(rep["missing_evidence"])
                    self.assertIn(f"rank {want['missing_evidence_names_rank']}", text)
                if want["verdict"] == "inconclusive":
                    self.assertTrue(rep["missing_evidence"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
