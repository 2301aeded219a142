"""The Python binding against the real library: diagnoses bundled real logs,
streams events, maps errors, and agrees with the faultline command."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.dirname(HERE))

import faultline  # noqa: E402

LOGS = os.path.join(ROOT, "tests", "data", "logs")
GOLDEN = os.path.join(ROOT, "tests", "golden")


class Diagnose(unittest.TestCase):
    def test_real_logs_get_their_labeled_failure(self):
        # tests/data/logs/SOURCES.md: the class each log was labeled with.
        for name, typ in (("A009.log", "port_in_use"), ("A052.log", "cuda_oom"), ("B043.log", "host_oom"),
                          ("B063.log", "gpu_hardware")):
            with self.subTest(log=name):
                r = faultline.diagnose(os.path.join(LOGS, name))
                self.assertEqual(r.verdict, "failure")
                self.assertTrue(r.failed)
                self.assertEqual(r.root.type, typ)
                self.assertTrue(r.fingerprint.value.startswith("fp1:"))
                self.assertTrue(r.fix.commands)

    def test_multi_rank_job_directory(self):
        r = faultline.diagnose(os.path.join(GOLDEN, "multirank", "oom-rank5"))
        self.assertEqual((r.root.type, r.root.rank, r.root.host), ("cuda_oom", 5, "node-b"))
        self.assertIn("nccl_timeout", {c.type for c in r.collateral})
        self.assertFalse(r.action.retry)

    def test_text_bytes_and_healthy(self):
        oom = "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of 79.15 GiB\n"
        self.assertEqual(faultline.diagnose(text=oom).root.rank, 3)
        self.assertEqual(faultline.diagnose(data=oom.encode()).root.type, "cuda_oom")
        healthy = faultline.diagnose(text="step 1 loss 2.31\nstep 2 loss 2.20\n")
        self.assertEqual(healthy.verdict, "no-failure")
        self.assertFalse(healthy.failed)
        self.assertIsNone(healthy.root)

    def test_a_missing_path_is_an_error_not_log_text(self):
        with self.assertRaises(FileNotFoundError):
            faultline.diagnose("/nonexistent/job.log")
        with self.assertRaises(FileNotFoundError):
            faultline.diagnose(path="job.log\n")
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "notes.md"), "w") as f:
                f.write("not a log")
            with self.assertRaises(FileNotFoundError):
                faultline.diagnose(d)  # the CLI exits 2 on it too
        with self.assertRaises(TypeError):
            faultline.diagnose(b"bytes are data=, not a path")
        with self.assertRaises(TypeError):
            faultline.diagnose("a.log", text="both")

    def test_compressed_logs_and_the_cli_file_filter(self):
        import gzip
        with open(os.path.join(LOGS, "A052.log"), "rb") as f:
            raw = f.read()
        with tempfile.TemporaryDirectory() as d:
            with gzip.open(os.path.join(d, "rank0.log.gz"), "wb") as f:
                f.write(raw)
            for name in ("notes.md", ".hidden.log", "rank0.log.bak"):
                with open(os.path.join(d, name), "w") as f:
                    f.write("RuntimeError: CUDA error: an illegal memory access was encountered\n")
            self.assertEqual(faultline.diagnose(d).root.type, "cuda_oom")
            cli = os.environ.get("FAULTLINE_BIN", os.path.join(ROOT, "build", "faultline"))
            if os.path.exists(cli):
                want = json.loads(subprocess.run([cli, "diagnose", "--json", d], capture_output=True).stdout)
                self.assertEqual(faultline.diagnose(d).to_dict()["inputs"], want["inputs"])
        for name, want in (("x.log", True), ("x.stderr", True), ("x.out.zst", True), (".x.log", False), ("x.log.1", False)):
            self.assertEqual(faultline.is_log_file_name(name), want, name)

    def test_report_mirrors_the_cli_json(self):
        path = os.path.join(LOGS, "A052.log")
        cli = os.environ.get("FAULTLINE_BIN", os.path.join(ROOT, "build", "faultline"))
        if not os.path.exists(cli):
            self.skipTest("faultline command not built")
        want = json.loads(subprocess.run([cli, "diagnose", "--json", path], capture_output=True).stdout)
        self.assertEqual(faultline.diagnose(path).to_dict(), want)

    def test_partials_merge_to_the_whole(self):
        files = [os.path.join(GOLDEN, "multirank", "unknown-rank2", f"rank{r}.log") for r in range(4)]
        whole = faultline.diagnose(files).to_dict()
        with faultline.Diagnoser() as a, faultline.Diagnoser() as b, faultline.Diagnoser() as job:
            for f in files[:2]:
                a.add_file(f)
            for f in files[2:]:
                b.add_file(f)
            job.merge_partial(b.partial())
            job.merge_partial(a.partial())
            self.assertEqual(job.report().to_dict(), whole)
            with self.assertRaises(faultline.InvalidArgument):
                job.merge_partial(b"not a partial")
            self.assertIn("failure", job.summary())
            self.assertNotIn("incomplete", job.report().inputs)
            job.set_incomplete("time limit of 5 s reached")
            self.assertEqual(job.report().inputs["incomplete"], "time limit of 5 s reached")
            self.assertTrue(job.summary().endswith("; inputs incomplete"))


class Streaming(unittest.TestCase):
    def test_scanner_events_in_chunks(self):
        line = b"[rank5]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 5 has a total capacity of 79.15 GiB\n"
        with faultline.Pack.default() as pack, faultline.Scanner(pack) as sc:
            events = sc.feed(line[:30]) + sc.feed(line[30:] + b"tail without newline")
            events += sc.finish()
            oom = [e for e in events if e.entry_id == "cuda-out-of-memory"]
            self.assertEqual(len(oom), 1)
            self.assertEqual(oom[0].rank, 5)
            self.assertEqual(oom[0].captures.get("requested"), "2.00 GiB")
            self.assertEqual(oom[0].line_number, 1)
            self.assertEqual(sc.stats()["lines"], 2)
            # Only the OOM line holds a key of the literal filter.
            self.assertEqual(sc.stats()["candidate_lines"], 1)

    def test_skipped_chunks_keep_line_numbers(self):
        oom = b"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB\n"
        with faultline.Pack.default() as pack, faultline.Scanner(pack) as sc:
            self.assertEqual(sc.skip(oom * 3), [])  # whole lines passed over: no events
            events = sc.feed(b"step 1\n" + oom) + sc.finish()
            self.assertEqual([e.line_number for e in events if e.entry_id == "cuda-out-of-memory"], [5])
            self.assertEqual(sc.stats()["lines"], 5)
        with faultline.Diagnoser() as d:
            d.begin_source("train.log")
            d.skip(b"noise\n" * 1000)
            d.feed(oom)
            self.assertEqual((d.report().root.source, d.report().root.line), ("train.log", 1001))

    def test_pack_pages_and_entries(self):
        with faultline.Pack.default() as pack:
            self.assertGreaterEqual(len(pack), 150)
            ids = {e["id"] for e in pack.entries()}
            self.assertIn("nccl-watchdog-timeout", ids)
            page = pack.explain("nccl-watchdog-timeout", markdown=True)
            self.assertTrue(page.startswith("# "))
            self.assertIn("## Fix", page)
            with self.assertRaises(KeyError):
                pack.explain("no-such-entry")

    @unittest.skipUnless(os.environ.get("FAULTLINE_SITE_PACK"), "FAULTLINE_SITE_PACK: the example site pack (ctest sets it)")
    def test_a_site_pack_stacked_over_ours(self):
        ours, site = faultline.Pack.default(), faultline.Pack.open(os.environ["FAULTLINE_SITE_PACK"])
        stack = faultline.Pack.stack([ours, site])
        ours.close(), site.close()  # the stack keeps its own references
        self.assertEqual((stack.layers, stack.library), (2, "example-site"))
        origin = {e["id"]: e["pack"] for e in stack.entries()}
        self.assertEqual(origin["site-nhc-health-check-failed"], "example-site")
        self.assertEqual(origin["slurm-prolog-failed"], "example-site")  # replaced by the site
        self.assertEqual(origin["nccl-watchdog-timeout"], "faultline")
        self.assertNotIn("host-cpu-thermal-throttle", origin)  # turned off by the site
        d = faultline.Diagnoser(stack)
        d.add_file(os.path.join(ROOT, "tests", "data", "site", "prolog-nhc.log"))
        root = d.report().root
        self.assertEqual((root.id, root.pack), ("site-nhc-health-check-failed", "example-site"))
        with self.assertRaises(faultline.FaultlineError):
            faultline.Pack.stack([faultline.Pack.open(os.environ["FAULTLINE_SITE_PACK"])])  # its base is not below it


class Errors(unittest.TestCase):
    def test_status_codes_map_to_exceptions(self):
        with tempfile.NamedTemporaryFile(suffix=".flpack") as f:
            f.write(b"this is not a pack at all, just text" * 4)
            f.flush()
            with self.assertRaises(faultline.NotAPack):
                faultline.Pack.open(f.name)
        with self.assertRaises(faultline.FaultlineIOError):
            faultline.Pack.open("/nonexistent/pack.flpack")
        with self.assertRaises(faultline.NotAPack):
            faultline.Pack.from_bytes(b"\0" * 128)
        self.assertTrue(issubclass(faultline.OutOfMemory, MemoryError))

    def test_version(self):
        self.assertRegex(faultline.library_version(), r"^\d+\.\d+\.\d+$")
        self.assertEqual(faultline.__version__, faultline.library_version())


class Lifetimes(unittest.TestCase):
    def test_closing_a_pack_in_use_is_safe(self):
        # The natural with-block: the pack is closed, the diagnoser and scanner go on.
        with faultline.Pack.default() as pack:
            d = faultline.Diagnoser(pack)
            s = faultline.Scanner(pack)
        oom = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB\n"
        self.assertIn("cuda-out-of-memory", {e.entry_id for e in s.feed(oom)})
        d.begin_source("a.log")
        d.feed(oom)
        d.end_source()
        self.assertEqual(d.report().root.type, "cuda_oom")
        d.close()
        s.close()
        with self.assertRaises(faultline.InvalidArgument):
            faultline.Diagnoser(pack)  # a closed pack makes nothing new


if __name__ == "__main__":
    unittest.main(verbosity=2)
