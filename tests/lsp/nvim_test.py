#!/usr/bin/env python3
"""`faultline lsp` under a real LSP client: headless Neovim (Debian's 0.7,
its built-in client) opens the golden multi-rank log; the root diagnostic must
be an error on the line the log's meaning gives (the expected rank's CUDA OOM
line), and the code actions on it must copy the native report's fix command.
nvim_lsp_test.lua does the editor's side and writes what it saw."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_case  # noqa: E402


def main():
    nvim = os.environ.get("NVIM", shutil.which("nvim") or "nvim")
    log = os.path.abspath(golden_case.LOG)
    expect = golden_case.expectation()
    with open(log, encoding="utf-8") as f:
        root_line = golden_case.expected_root_line(f.read().split("\n"), expect)
    native = golden_case.native_report(log)
    fix_commands = [c["run"] for c in native["fix"]["commands"]]
    tmp = tempfile.mkdtemp(prefix="fl-nvim-")
    try:
        cfg = {"log_path": log, "faultline": os.path.abspath(golden_case.faultline_bin()), "root_dir": tmp,
               "result_path": os.path.join(tmp, "result.json"), "timeout_ms": 20000}
        with open(os.path.join(tmp, "config.json"), "w") as f:
            json.dump(cfg, f)
        env = dict(os.environ, FAULTLINE_NVIM_TEST_CONFIG=os.path.join(tmp, "config.json"), XDG_STATE_HOME=tmp,
                   XDG_DATA_HOME=tmp, XDG_CONFIG_HOME=tmp, XDG_CACHE_HOME=tmp)
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "nvim_lsp_test.lua")
        proc = subprocess.run([nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", "luafile " + script],
                              env=env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
        if not os.path.exists(cfg["result_path"]):
            print("FAIL: Neovim wrote no result (status %d)\n%s%s" % (proc.returncode, proc.stdout, proc.stderr))
            return 1
        with open(cfg["result_path"]) as f:
            result = json.load(f)
    finally:
        shutil.rmtree(tmp)

    failures = list(result["errors"])
    errors = [d for d in result["diagnostics"] if d["is_error"]]
    print("root expected on line %d (0-based): rank %d, %s" % (root_line, expect["rank"], expect["type"]))
    for d in result["diagnostics"]:
        print("  nvim diagnostic line %d severity %d %s" % (d["lnum"], d["severity"], d.get("code")))
    if [d["lnum"] for d in errors] != [root_line]:
        failures.append("error diagnostics on lines %s, expected exactly line %d" % ([d["lnum"] for d in errors], root_line))
    elif "(%s)" % expect["type"] not in errors[0]["message"] or errors[0]["source"] != "faultline":
        failures.append("root diagnostic says %r (source %r)" % (errors[0]["message"], errors[0]["source"]))
    if not any(d["severity"] == 3 for d in result["diagnostics"]):
        failures.append("no collateral (information) diagnostic")
    fix_actions = [a for a in result["actions"]
                   if a["command"] == "faultline.copyText" and a["title"].startswith("Copy fix command")]
    print("  code actions: %s" % [a["title"] for a in result["actions"]])
    if [a["arguments"][0] for a in fix_actions] != fix_commands:
        failures.append("fix actions copy %s, the report's fix commands are %s" %
                        ([a["arguments"] for a in fix_actions], fix_commands))
    for f in failures:
        print("FAIL: " + f)
    print("%d passed, %d failed" % (0 if failures else 1, 1 if failures else 0))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
