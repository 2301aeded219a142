#!/usr/bin/env python3
"""Merge property: a job's logs split into random partials (one per node, as
`faultline partial` would make them), merged in random order and in random
groupings, give exactly the report of diagnosing all logs together."""
import json
import os
import random
import tempfile
import unittest

import flrun

HERE = flrun.HERE


def job_files(d):
    return sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".log"))


class Merge(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        base = os.path.join(HERE, "multirank")
        cls.jobs = [job_files(os.path.join(base, d)) for d in sorted(os.listdir(base))
                    if os.path.isdir(os.path.join(base, d)) and len(job_files(os.path.join(base, d))) > 1]
        # A large "job": every eval case and failing-corpus log at once, so
        # that many sources, entries, ranks and candidates are merged.
        cls.jobs.append(job_files(os.path.join(HERE, "eval")) + job_files(os.path.join(HERE, "corpus")))
        cls.tmp = tempfile.TemporaryDirectory()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def partial(self, files, name):
        out = os.path.join(self.tmp.name, name)
        p = flrun.run(["partial", "-o", out, *files])
        self.assertEqual(p.returncode, 0, p.stderr.decode())
        return out

    def merge(self, partials, out=None):
        args = ["merge", "--json"] + (["-o", out] if out else []) + partials
        p = flrun.run(args)
        self.assertIn(p.returncode, (0, 1), p.stderr.decode())
        return out if out else json.loads(p.stdout)

    def test_random_partitions_merge_to_the_whole(self):
        rng = random.Random(20261202)
        for j, files in enumerate(self.jobs):
            whole = flrun.report(*files)
            for trial in range(6):
                with self.subTest(job=j, trial=trial):
                    shuffled = files[:]
                    rng.shuffle(shuffled)
                    k = rng.randint(1, len(files))
                    cuts = sorted(rng.sample(range(1, len(files)), k - 1)) if k > 1 else []
                    parts = [shuffled[a:b] for a, b in zip([0] + cuts, cuts + [len(files)])]
                    partials = [self.partial(p, f"j{j}t{trial}p{i}.flpart") for i, p in enumerate(parts)]
                    rng.shuffle(partials)
                    self.assertEqual(self.merge(partials), whole)
                    if len(partials) >= 3:
                        # Associativity: (a+b)+rest == a+(b+rest).
                        ab = self.merge(partials[:2], os.path.join(self.tmp.name, f"j{j}t{trial}ab"))
                        rest = self.merge(partials[1:], os.path.join(self.tmp.name, f"j{j}t{trial}rest"))
                        self.assertEqual(self.merge([ab] + partials[2:]), whole)
                        self.assertEqual(self.merge([partials[0], rest]), whole)

    def test_corrupt_partial_is_refused(self):
        files = self.jobs[0]
        good = self.partial(files, "good.flpart")
        with open(good, "rb") as f:
            data = bytearray(f.read())
        for name, bad in (("truncated", data[: len(data) // 2]), ("flipped", data[:40] + bytes([data[40] ^ 0xFF]) + data[41:]),
                          ("empty", b""), ("junk", os.urandom(300))):
            with self.subTest(kind=name):
                path = os.path.join(self.tmp.name, name)
                with open(path, "wb") as f:
                    f.write(bad)
                p = flrun.run(["merge", "--json", path])
                self.assertEqual(p.returncode, 2)
                self.assertIn(b"partial", p.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
