"""The golden multi-rank log the language-server tests open, and where its
root error is, found from what the log means (expect.json names the type and
the rank; the test knows how that failure reads), not from faultline's output."""
import json
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CASE_DIR = os.path.join(ROOT, "tests", "golden", "multirank", "oom-rank5")
LOG = os.path.join(CASE_DIR, "node-b.log")  # ranks 4-7 of the job; rank 5 runs out of GPU memory

# How the error of each failure type reads on its line (PyTorch's own messages).
ERROR_TEXT = {"cuda_oom": "CUDA out of memory"}


def expectation():
    with open(os.path.join(CASE_DIR, "expect.json")) as f:
        return json.load(f)


def expected_root_line(lines, expect):
    """0-based index of the first line printed by the expected rank that
    carries the expected type's error."""
    prefix = "[rank%d]:" % expect["rank"]
    marker = ERROR_TEXT[expect["type"]]
    for i, line in enumerate(lines):
        if line.startswith(prefix) and marker in line:
            return i
    raise AssertionError("no line of rank %d says %r" % (expect["rank"], marker))


def faultline_bin():
    return os.environ.get("FAULTLINE_BIN", os.path.join(ROOT, "build", "faultline"))


def native_report(path):
    """`faultline diagnose --json` on a file: what the server must agree with."""
    out = subprocess.run([faultline_bin(), "diagnose", "--json", path], capture_output=True, check=False)
    assert out.returncode in (0, 1), out.stderr.decode()
    return json.loads(out.stdout)
