#!/usr/bin/env python3
"""Fingerprints: the same failure in another run (other times, pids, hosts,
sequence numbers, paths) keeps its fingerprint; different failures differ."""
import os
import re
import shutil
import tempfile
import unittest

import flrun

HERE = flrun.HERE
MULTI = os.path.join(HERE, "multirank")


def rerun(src_dir, dst_dir, seed):
    """Copies a job as another run of it would print it."""
    os.makedirs(dst_dir)
    for name in os.listdir(src_dir):
        if not name.endswith(".log"):
            continue
        with open(os.path.join(src_dir, name)) as f:
            text = f.read()
        text = re.sub(r"\b(\d\d):(\d\d):(\d\d)", lambda m: f"{(int(m[1]) + seed) % 24:02d}:{m[2]}:{m[3]}", text)
        text = re.sub(r"E1026", f"E11{10 + seed:02d}", text)
        text = re.sub(r"2024-(\d\d)-(\d\d)", f"2025-0{1 + seed % 9}-1{seed % 9}", text)
        text = re.sub(r"pid: (\d+)", lambda m: f"pid: {int(m[1]) + 1000 * seed}", text)
        text = re.sub(r"(SeqNum=|work: |sequence id: )(\d+)", lambda m: f"{m[1]}{int(m[2]) + 17 * seed}", text)
        text = text.replace("node-a", f"a{seed}-gpu").replace("node-b", f"b{seed}-gpu").replace("gpu-node-12", f"h{seed}")
        text = text.replace("/workspace/", f"/home/user{seed}/run/")
        text = re.sub(r"line (\d+), in", lambda m: f"line {int(m[1]) + seed}, in", text)
        with open(os.path.join(dst_dir, name), "w") as f:
            f.write(text)


class Fingerprint(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def fp(self, *inputs):
        rep = flrun.report(*inputs)
        return rep["fingerprint"]["value"], rep

    def test_same_failure_other_run_same_fingerprint(self):
        for case in ("oom-rank5", "sigkill-rank3", "unknown-rank2", "lagging-rank"):
            base, rep = self.fp(os.path.join(MULTI, case))
            for seed in (1, 2):
                with self.subTest(case=case, seed=seed):
                    other = os.path.join(self.tmp, f"{case}-{seed}")
                    rerun(os.path.join(MULTI, case), other, seed)
                    fp, rep2 = self.fp(other)
                    self.assertEqual(rep2["root"]["id"], rep["root"]["id"])
                    self.assertEqual(fp, base)

    def test_unknown_failure_template_ignores_numbers_and_paths(self):
        a = os.path.join(self.tmp, "unk-a")
        b = os.path.join(self.tmp, "unk-b")
        c = os.path.join(self.tmp, "unk-c")
        for d, msg in ((a, "ValueError: shard 17 of /data/a/part-0017.arrow has 0x1f bad rows"),
                       (b, "ValueError: shard 4 of /mnt/b/part-0004.arrow has 0x2e bad rows"),
                       (c, "KeyError: 'input_ids'")):
            os.makedirs(d)
            with open(os.path.join(d, "rank0.log"), "w") as f:
                f.write("step 10 loss 2.31\nTraceback (most recent call last):\n"
                        '  File "train.py", line 9, in <module>\n    main()\n' + msg + "\n")
        fa, ra = self.fp(a)
        fb, _ = self.fp(b)
        fc, _ = self.fp(c)
        self.assertEqual(ra["root"]["id"], "unknown")
        self.assertEqual(fa, fb)
        self.assertNotEqual(fa, fc)
        # `faultline templates` groups the recurring one: 2 logs, then 1.
        p = flrun.run(["templates", a, b, c])
        self.assertEqual(p.returncode, 0, p.stderr.decode())
        counts = [line.split()[:2] for line in p.stdout.decode().splitlines() if not line.startswith("       ")]
        self.assertEqual(counts, [["2", fa], ["1", fc]])
        self.assertIn("ValueError: shard <n> of <path> has <hex> bad rows", p.stdout.decode())

    def test_different_failures_differ(self):
        seen = {}
        dirs = [os.path.join(HERE, "corpus", f) for f in sorted(os.listdir(os.path.join(HERE, "corpus"))) if f.endswith(".log")]
        dirs += [os.path.join(MULTI, d) for d in sorted(os.listdir(MULTI)) if os.path.isdir(os.path.join(MULTI, d))]
        for path in dirs:
            rep = flrun.report(path)
            if rep["fingerprint"] is None:
                continue  # no failure found: nothing to fingerprint
            fp = rep["fingerprint"]["value"]
            key = rep["root"]["id"] if rep["root"]["id"] != "unknown" else rep["root"]["template"]
            with self.subTest(log=path):
                self.assertEqual(seen.setdefault(fp, key), key, f"{path}: fingerprint shared by different failures")
        self.assertGreaterEqual(len(seen), 8)


if __name__ == "__main__":
    unittest.main(verbosity=2)
