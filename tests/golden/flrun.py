"""Shared helpers of the golden tests: run the faultline command, validate
every JSON report it prints against libcore/report/report.schema.json."""
import json
import os
import subprocess
import tempfile

import jsonschema

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BIN = os.environ.get("FAULTLINE_BIN", os.path.join(ROOT, "build", "faultline"))
SHARED = os.environ.get("FAULTLINE_SHARED_DIR", os.path.join(os.path.dirname(ROOT), "shared"))

with open(os.path.join(ROOT, "libcore", "report", "report.schema.json")) as f:
    _validator = jsonschema.Draft7Validator(json.load(f))

validated = 0


def run(args, stdin=None):
    return subprocess.run([BIN] + args, input=stdin, capture_output=True, timeout=300)


def report(*inputs, extra=()):
    """Diagnoses `inputs` (files or directories) and returns the validated report."""
    global validated
    p = run(["diagnose", "--json", *extra, *inputs])
    if p.returncode not in (0, 1):
        raise AssertionError(f"faultline diagnose {inputs}: exit {p.returncode}: {p.stderr.decode()[:500]}")
    rep = json.loads(p.stdout)
    errors = sorted(_validator.iter_errors(rep), key=lambda e: list(e.path))
    if errors:
        raise AssertionError(f"report of {inputs} violates the schema: {errors[0].message} at {list(errors[0].path)}")
    expected_rc = 1 if rep["verdict"] == "no-failure" else 0
    if p.returncode != expected_rc:
        raise AssertionError(f"exit status {p.returncode} for verdict {rep['verdict']}")
    validated += 1
    return rep


def labels(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def report_text(text):
    """Diagnoses `text` written to a temporary .log file; returns the validated report."""
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as f:
        f.write(text)
    try:
        return report(f.name)
    finally:
        os.unlink(f.name)
