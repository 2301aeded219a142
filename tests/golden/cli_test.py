#!/usr/bin/env python3
"""The faultline command's inputs and formats: gzip and zstd logs (whole,
concatenated, truncated), stdin, directories, GitHub annotations, scan,
pack-info, explain, list and exit statuses."""
import gzip
import json
import time
import os
import shutil
import signal
import subprocess
import tempfile
import unittest

import flrun

ROOT = flrun.ROOT
LOGS = os.path.join(ROOT, "tests", "data", "logs")


class Inputs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        with open(os.path.join(LOGS, "A052.log"), "rb") as f:
            cls.a052 = f.read()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def path(self, name, data):
        p = os.path.join(self.tmp, name)
        with open(p, "wb") as f:
            f.write(data)
        return p

    def test_gzip_is_the_same_as_plain(self):
        plain = flrun.report(os.path.join(LOGS, "A052.log"))
        gz = flrun.report(self.path("A052.log.gz", gzip.compress(self.a052)))
        self.assertEqual(gz["root"]["id"], plain["root"]["id"])
        self.assertEqual(gz["inputs"]["lines"], plain["inputs"]["lines"])
        both = flrun.report(self.path("twice.gz", gzip.compress(self.a052) + gzip.compress(self.a052)))
        self.assertEqual(both["inputs"]["lines"], 2 * plain["inputs"]["lines"])

    def test_zstd_fixture(self):
        rep = flrun.report(os.path.join(flrun.HERE, "compressed", "B043.log.zst"))
        self.assertEqual(rep["root"]["type"], "host_oom")

    def test_truncated_gzip_keeps_what_was_read(self):
        data = gzip.compress(self.a052 * 50)
        p = self.path("cut.gz", data[: len(data) * 2 // 3])
        r = flrun.run(["diagnose", "--json", p])
        self.assertEqual(r.returncode, 0)
        self.assertIn(b"truncated gzip", r.stderr)
        self.assertIn(b"cuda-out-of-memory", r.stdout)
        # The report itself says that it saw only part of its input.
        rep = flrun.report(p)
        self.assertIn("truncated gzip", rep["inputs"]["incomplete"])
        self.assertNotIn("incomplete", flrun.report(self.path("A052.log", self.a052))["inputs"])

    def test_time_limit_gives_a_partial_answer_that_says_so(self):
        big = self.path("big.log", self.a052 * 4000)  # about 4 MB: many reads of 1 MiB
        # A limit that has passed before the first read: nothing is read, and the report says why.
        r = flrun.run(["diagnose", "--json", "--time-limit", "1e-9", big])
        self.assertEqual(r.returncode, 1, r.stderr)
        rep = json.loads(r.stdout)
        self.assertIn("time limit of 1e-09 s reached", rep["inputs"]["incomplete"])
        self.assertEqual(rep["inputs"]["bytes"], 0)
        self.assertIn(b"time limit", r.stderr)
        r = flrun.run(["diagnose", "--summary", "--time-limit", "1e-9", big])
        self.assertTrue(r.stdout.rstrip().endswith(b"; inputs incomplete"), r.stdout)
        r = flrun.run(["diagnose", "--time-limit", "1e-9", big])
        self.assertIn(b"Incomplete input: time limit", r.stdout)
        # A generous limit changes nothing.
        rep = flrun.report(big, extra=["--time-limit", "600"])
        self.assertEqual(rep["root"]["id"], "cuda-out-of-memory")
        self.assertNotIn("incomplete", rep["inputs"])
        for bad in ("0", "-1", "soon"):
            self.assertEqual(flrun.run(["diagnose", "--time-limit", bad, big]).returncode, 2)

    def test_stdin_and_missing_file(self):
        r = flrun.run(["diagnose", "--summary", "-"], stdin=self.a052)
        self.assertEqual(r.returncode, 0)
        self.assertTrue(r.stdout.startswith(b"failure: cuda-out-of-memory"))
        self.assertLessEqual(len(r.stdout), 1024)
        r = flrun.run(["diagnose", os.path.join(self.tmp, "nope.log")])
        self.assertEqual(r.returncode, 2)
        r = flrun.run(["diagnose", "-"], stdin=b"step 1 loss 2.0\n")
        self.assertEqual(r.returncode, 1)

    def test_messages_show_no_control_bytes_of_a_name(self):
        # A Slurm epilog diagnoses an output path the job's user chose.
        name = os.path.join(self.tmp, "job\x1b]0;owned\x07.log")
        r = flrun.run(["diagnose", name])
        self.assertEqual(r.returncode, 2)
        self.assertIn(b"job?]0;owned?.log", r.stderr)
        self.assertNotIn(b"\x1b", r.stderr)


def run_on_terminal(args, stream, env=None):
    """Runs faultline with its `stream` ("stdout" or "stderr") on a pseudo-terminal and the other on a
    pipe; returns what the terminal got, what the pipe got, and the exit status."""
    import pty
    main, sub = pty.openpty()
    pipes = {"stdout": sub, "stderr": subprocess.PIPE} if stream == "stdout" else {"stdout": subprocess.PIPE, "stderr": sub}
    p = subprocess.Popen([flrun.BIN, *args], env=env, **pipes)
    os.close(sub)
    seen = b""
    while True:
        try:
            data = os.read(main, 65536)
        except OSError:  # EIO once the process closed its side
            break
        if not data:
            break
        seen += data
    out, err = p.communicate(timeout=300)
    os.close(main)
    return seen, out if stream == "stderr" else err, p.returncode


class Progress(unittest.TestCase):
    def test_progress_on_a_terminal_only(self):
        with tempfile.TemporaryDirectory() as d:
            big = os.path.join(d, "big.log")
            with open(os.path.join(LOGS, "A052.log"), "rb") as f:
                chunk = f.read()
            with open(big, "wb") as f:
                for _ in range((80 << 20) // len(chunk) + 1):  # > 64 MB: progress is shown
                    f.write(chunk)
            seen, out, status = run_on_terminal(["diagnose", "--summary", big], "stderr")
            self.assertEqual(status, 0)
            self.assertTrue(out.startswith(b"failure: cuda-out-of-memory"))
            self.assertIn(b"faultline: " + big.encode(), seen)
            self.assertIn(b" MB (", seen)
            # Not on a pipe: stderr stays clean.
            r = flrun.run(["diagnose", "--summary", big])
            self.assertEqual(r.stderr, b"")


class Run(unittest.TestCase):
    def test_passes_output_through_and_keeps_the_status(self):
        log = os.path.join(LOGS, "A052.log")
        with tempfile.TemporaryDirectory() as d:
            report = os.path.join(d, "r.json")
            cmd = f"printf 'step 1\\nstep 2\\n'; cat '{log}' >&2; exit 3"
            r = flrun.run(["run", "--report", report, "--", "sh", "-c", cmd])
            self.assertEqual(r.returncode, 3)
            self.assertEqual(r.stdout, b"step 1\nstep 2\n")  # unchanged
            with open(log, "rb") as f:
                self.assertTrue(r.stderr.startswith(f.read()))  # the command's stderr first, unchanged
            self.assertIn(b"faultline: the command exited with status 3", r.stderr)
            with open(report) as f:
                self.assertEqual(json.load(f)["root"]["type"], "cuda_oom")
            ok = flrun.run(["run", "--", "sh", "-c", "echo fine"])
            self.assertEqual((ok.returncode, ok.stdout, ok.stderr), (0, b"fine\n", b""))
            self.assertEqual(flrun.run(["run", "--", "/nonexistent/cmd"]).returncode, 127)

    def test_summary_file_fits_a_termination_message(self):
        # Kubernetes keeps 4096 bytes of /dev/termination-log: the summary is one line of at most 1 KiB.
        log = os.path.join(LOGS, "A052.log")
        with tempfile.TemporaryDirectory() as d:
            summary = os.path.join(d, "termination-log")
            r = flrun.run(["run", "--quiet", "--summary-file", summary, "--", "sh", "-c", f"cat '{log}'; exit 1"])
            self.assertEqual(r.returncode, 1)
            with open(summary, "rb") as f:
                text = f.read()
            self.assertLessEqual(len(text), 1024)
            self.assertTrue(text.startswith(b"failure: cuda-out-of-memory"), text)
            self.assertEqual(text.count(b"\n"), 1)

    def test_run_and_templates_take_the_pack_option_and_variable(self):
        bad = ["--pack", "/nonexistent/pack.flpack"]
        r = flrun.run(["run", *bad, "--", "true"])
        self.assertEqual(r.returncode, 2)
        self.assertIn(b"cannot open pack /nonexistent/pack.flpack", r.stderr)
        r = flrun.run(["templates", *bad, os.path.join(LOGS, "A052.log")])
        self.assertEqual(r.returncode, 2)
        env = dict(os.environ, FAULTLINE_PACK="/nonexistent/pack.flpack")
        for args in (["run", "--", "true"], ["templates", os.path.join(LOGS, "A052.log")]):
            p = subprocess.run([flrun.BIN, *args], env=env, capture_output=True, timeout=60)
            self.assertEqual(p.returncode, 2, args)

    def test_forwards_sigterm(self):
        p = subprocess.Popen([flrun.BIN, "run", "--quiet", "--", "sh", "-c", "trap 'exit 42' TERM; echo up; while :; do sleep 0.05; done"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertEqual(p.stdout.readline(), b"up\n")
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=20)
        self.assertEqual(p.returncode, 42)


class Usage(unittest.TestCase):
    def test_help_topic_version_and_options_before_the_command(self):
        r = flrun.run(["help", "diagnose"])
        self.assertEqual(r.returncode, 0)
        self.assertTrue(r.stdout.startswith(b"usage: faultline diagnose"), r.stdout[:80])
        for v in ("-V", "--version"):
            self.assertTrue(flrun.run([v]).stdout.startswith(b"faultline "), v)
        log = os.path.join(LOGS, "A052.log")
        r = flrun.run(["--summary", "diagnose", log])
        self.assertEqual(r.returncode, 0)
        self.assertTrue(r.stdout.startswith(b"failure: cuda-out-of-memory"))
        r = flrun.run(["--pack", "/nonexistent/p.flpack", "diagnose", log])
        self.assertEqual(r.returncode, 2)
        self.assertIn(b"cannot open pack /nonexistent/p.flpack", r.stderr)

    def test_a_missing_option_value_is_named_as_such(self):
        for args in (["diagnose", "--pack"], ["diagnose", "-", "--jobs"], ["run", "--report"], ["scan", "--pack"]):
            r = flrun.run(args, stdin=b"")
            self.assertEqual(r.returncode, 2, args)
            self.assertIn(b"needs a value", r.stderr, args)

    def test_scan_takes_no_option_for_a_file(self):
        r = flrun.run(["scan", "--jsno", os.path.join(LOGS, "A052.log")])
        self.assertEqual(r.returncode, 2)
        self.assertIn(b"unknown option", r.stderr)
        with tempfile.TemporaryDirectory() as d:
            odd = os.path.join(d, "-rank0.log")
            shutil.copy(os.path.join(LOGS, "A052.log"), odd)
            r = subprocess.run([flrun.BIN, "scan", "--", "-rank0.log"], cwd=d, capture_output=True, timeout=60)
            self.assertEqual(r.returncode, 0)

    def test_one_line_is_singular(self):
        self.assertIn(b"in 1 line of 1 log.", flrun.run(["diagnose", "-"], stdin=b"hello\n").stdout)

    def test_color_choice(self):
        log = os.path.join(LOGS, "A052.log")
        self.assertIn(b"\x1b[", flrun.run(["diagnose", "--color=always", log]).stdout)
        self.assertNotIn(b"\x1b[", flrun.run(["diagnose", "--color", "never", log]).stdout)
        self.assertEqual(flrun.run(["diagnose", "--color=sometimes", log]).returncode, 2)
        for env_extra, colored in (({}, True), ({"TERM": "dumb"}, False), ({"NO_COLOR": "1"}, False), ({"NO_COLOR": ""}, True)):
            env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
            env["TERM"] = "xterm"
            env.update(env_extra)
            out, _, _ = run_on_terminal(["diagnose", log], "stdout", env)
            self.assertEqual(b"\x1b[" in out, colored, env_extra)

    def test_pack_files_that_are_no_files(self):
        with tempfile.TemporaryDirectory() as d:
            fifo = os.path.join(d, "fifo")
            os.mkfifo(fifo)
            for args in (["pack-info", d], ["pack-info", "/dev/zero"], ["pack-info", fifo],
                         ["diagnose", "--pack", fifo, os.path.join(LOGS, "A052.log")]):
                r = flrun.run(args)
                self.assertEqual(r.returncode, 2, args)
                self.assertIn(b"not a regular file", r.stderr, args)
            with open(os.path.join(flrun.ROOT, "build", "default.flpack"), "rb") as f:
                cut = f.read(4096)
            bad = os.path.join(d, "cut.flpack")
            with open(bad, "wb") as f:
                f.write(cut)
            r = flrun.run(["pack-info", bad])
            self.assertEqual(r.returncode, 2)
            self.assertIn(b"truncated", r.stderr)  # the verifier's reason, not only "pack is corrupt"
        r = flrun.run(["merge", "/dev/zero"])
        self.assertEqual(r.returncode, 2)
        self.assertIn(b"larger than any partial", r.stderr)

    def test_run_killed_outright_takes_its_command_along(self):
        p = subprocess.Popen([flrun.BIN, "run", "--quiet", "--", "sh", "-c", "echo $$; exec sleep 60"], stdout=subprocess.PIPE)
        child = int(p.stdout.readline())
        p.kill()
        p.wait(timeout=20)
        p.stdout.close()
        for _ in range(100):
            try:
                os.kill(child, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
        else:
            os.kill(child, 9)
            self.fail("the command outlived faultline run")


class Formats(unittest.TestCase):
    def test_github_annotation(self):
        job = os.path.join(flrun.HERE, "multirank", "oom-rank5")
        r = flrun.run(["diagnose", "--format", "github", job])
        self.assertEqual(r.returncode, 0)
        line = r.stdout.decode().strip()
        self.assertTrue(line.startswith("::error file="), line)
        self.assertIn("node-b.log,line=", line)
        self.assertIn("::failure: cuda-out-of-memory", line)
        r = flrun.run(["diagnose", "--format", "github", "-"], stdin=b"fine\n")
        self.assertTrue(r.stdout.startswith(b"::notice"))
        self.assertEqual(flrun.run(["diagnose", "--format", "yaml", "-"], stdin=b"x\n").returncode, 2)

    def test_scan_pack_info_explain_list(self):
        r = flrun.run(["scan", os.path.join(LOGS, "A009.log")])
        self.assertEqual(r.returncode, 0)
        self.assertIn(b"torchrun-port-in-use/", r.stdout)
        self.assertIn(b"port=44796", r.stdout)
        # Counts in words that agree with them: "1 line, 1 match", "2 lines, 0 matches".
        oom = b"CUDA out of memory. Tried to allocate 20.00 MiB\n"
        self.assertIn(b"faultline scan: 1 line, 1 match\n", flrun.run(["scan", "-"], stdin=oom).stderr)
        self.assertIn(b"faultline scan: 2 lines, 0 matches\n", flrun.run(["scan", "-"], stdin=b"a\nb\n").stderr)
        pack = os.path.join(os.path.dirname(flrun.BIN), "default.flpack")
        if os.path.exists(pack):
            r = flrun.run(["pack-info", pack])
            self.assertEqual(r.returncode, 0)
            self.assertIn(b"verified        yes", r.stdout)
        junk = os.path.join(tempfile.gettempdir(), "fl_not_a_pack")
        with open(junk, "wb") as f:
            f.write(b"junk" * 100)
        self.assertEqual(flrun.run(["pack-info", junk]).returncode, 2)
        r = flrun.run(["explain", "cuda-out-of-memory"])
        self.assertEqual(r.returncode, 0)
        self.assertIn(b"Fix\n---", r.stdout)
        self.assertEqual(flrun.run(["explain", "no-such-entry"]).returncode, 2)
        r = flrun.run(["list", "--type", "gpu_hardware"])
        self.assertEqual(r.returncode, 0)
        self.assertGreaterEqual(len(r.stdout.splitlines()), 2)

    def test_packs_of_older_formats(self):
        # tests/data/packs: the small signature set compiled by the flc of each
        # earlier pack format (README.md there). pack-info prints the format,
        # and the command diagnoses with the pack alone and stacked under ours.
        packs = os.path.join(ROOT, "tests", "data", "packs")
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        log = os.path.join(tmp, "oom.log")
        with open(log, "wb") as f:
            f.write(b"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.35 GiB. GPU 3 has a total capacity "
                    b"of 63.42 GiB of which 1.70 GiB is free.\n")
        for minor in range(4):
            pack = os.path.join(packs, f"format-1.{minor}.flpack")
            with self.subTest(pack=pack):
                r = flrun.run(["pack-info", pack])
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertIn(f"format          1.{minor} (this library reads 1.x)\n".encode(), r.stdout)
                self.assertIn(b"verified        yes\n", r.stdout)
                self.assertIn(b"entries         1\n", r.stdout)
                self.assertIn(b"library         (not named: pack format < 1.4)\n", r.stdout)
                rep = flrun.report(log, extra=["--pack", pack])
                self.assertEqual(rep["verdict"], "failure")
                self.assertEqual(rep["root"]["id"], "cuda-out-of-memory")
                self.assertEqual(rep["root"]["fields"]["requested"], "4.35 GiB")
                rep = flrun.report(log, extra=["--pack", pack, "--pack", "default"])
                self.assertEqual(rep["root"]["id"], "cuda-out-of-memory")
                self.assertEqual(rep["root"]["pack"], "faultline")
                self.assertEqual(len(rep["pack"]["layers"]), 2)

    def test_explain_shows_code_by_stack_answers_and_related_severity(self):
        # An entry with the page's extras, compiled into its own pack. Its
        # code holds a backtick fence and an escape byte: the Markdown fence
        # must outgrow the one inside, and no control byte reaches the terminal.
        flc = os.path.join(os.path.dirname(flrun.BIN), "compiler", "flc")
        src = os.path.join(flrun.ROOT, "signatures", "memory")
        with tempfile.TemporaryDirectory() as tmp:
            os.makedirs(os.path.join(tmp, "memory"))
            for name in ("cuda-out-of-memory", "cuda-oom-fragmentation"):
                with open(os.path.join(src, name + ".yaml")) as f:
                    text = f.read()
                keep = "cuda-oom-fragmentation" if name == "cuda-out-of-memory" else "cuda-out-of-memory"
                lines, skipping = [], False
                for line in text.splitlines():
                    # The entry's own page extras give way to the test's.
                    if line.startswith(("code_examples:", "answers:")):
                        skipping = True
                        continue
                    if skipping and (line.startswith(" ") or not line):
                        continue
                    skipping = False
                    if line.startswith("related:"):
                        line = "related: [%s]" % keep
                    elif line.startswith("causes:"):
                        line = "causes: []"
                    lines.append(line)
                if name == "cuda-out-of-memory":
                    lines += [
                        "code_examples:",
                        "  - stack: pytorch",
                        '    code: "x = model(batch)\\n```\\e[31mred"',
                        '    why: "smaller batches"',
                        "  - stack: deepspeed",
                        "    language: json",
                        '    code: "{\\"train_micro_batch_size_per_gpu\\": 1}"',
                        '    why: "one sample per GPU"',
                        "answers:",
                        '  hardware_or_software: "software: the job asks for more than the GPU has"',
                    ]
                with open(os.path.join(tmp, "memory", name + ".yaml"), "w") as f:
                    f.write("\n".join(lines) + "\n")
            pack = os.path.join(tmp, "p.flpack")
            r = subprocess.run([flc, "compile", tmp, "-o", pack], capture_output=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            md = flrun.run(["explain", "--markdown", "--pack", pack, "cuda-out-of-memory"])
            self.assertEqual(md.returncode, 0)
            out = md.stdout.decode()
            self.assertNotIn("\x1b", out)
            self.assertIn("## Fix in code, by stack\n\n### PyTorch\n\n````python\nx = model(batch)\n```?[31mred\n````\n", out)
            self.assertIn("### DeepSpeed\n\n```json\n", out)
            self.assertIn("- **Hardware or software?** software: the job asks", out)
            self.assertRegex(out, r"- `cuda-oom-fragmentation` \((critical|high|medium|low|info)\): ")
            text = flrun.run(["explain", "--pack", pack, "cuda-out-of-memory"]).stdout.decode()
            self.assertIn("At a glance\n-----------\n  - Hardware or software? software", text)
            self.assertIn("  PyTorch:\n      x = model(batch)\n      ```?[31mred\n    why: smaller batches\n", text)
            # An entry without extras shows neither section.
            plain = flrun.run(["explain", "--pack", pack, "cuda-oom-fragmentation"]).stdout.decode()
            self.assertNotIn("At a glance", plain)
            self.assertNotIn("Fix in code", plain)

    def test_parallel_files_give_the_serial_report(self):
        # Several files are diagnosed on several threads and merged; the
        # report must be byte-identical to one thread reading them in turn.
        root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "multirank")
        jobs = sorted(os.path.join(root, d) for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
        self.assertGreaterEqual(len(jobs), 3)
        for job in jobs:
            with self.subTest(job=os.path.basename(job)):
                serial = flrun.run(["diagnose", "--json", "--jobs", "1", job])
                for n in ("2", "3", "8"):
                    parallel = flrun.run(["diagnose", "--json", "--jobs", n, job])
                    self.assertEqual(parallel.returncode, serial.returncode)
                    self.assertEqual(parallel.stdout, serial.stdout)
        self.assertEqual(flrun.run(["diagnose", "--jobs", "0", jobs[0]]).returncode, 2)

    def test_every_command_has_help(self):
        for cmd in ("diagnose", "partial", "merge", "run", "explain", "list", "scan", "pack-info", "templates", "lsp"):
            with self.subTest(cmd=cmd):
                r = flrun.run([cmd, "--help"])
                self.assertEqual(r.returncode, 0)
                self.assertIn(b"usage: faultline " + cmd.encode(), r.stdout)
        r = flrun.run(["--version"])
        self.assertIn(b"default pack", r.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
