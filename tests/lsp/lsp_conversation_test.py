#!/usr/bin/env python3
"""`faultline lsp` in a scripted JSON-RPC conversation over pipes: diagnostics
on a golden multi-rank log at the line its meaning puts the root on, hover,
code actions equal to the native report's commands, a growing document whose
prefix is not matched again, a full replacement, malformed input, pack hot
reload, shutdown and exit."""
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import pathlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_case  # noqa: E402
from lsp_client import LspClient  # noqa: E402

ERROR, INFORMATION = 1, 3


def start(*args):
    c = LspClient([golden_case.faultline_bin(), "lsp", *args])
    init = c.request("initialize", {"processId": os.getpid(), "rootUri": None, "capabilities": {}})
    assert "result" in init, init
    c.notify("initialized", {})
    return c, init["result"]


def stop(c):
    assert c.request("shutdown", None)["result"] is None
    c.notify("exit", None)
    c.close()
    return c.proc.returncode


def open_doc(c, path, text=None, version=1):
    uri = pathlib.Path(path).resolve().as_uri()
    if text is None:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "log", "version": version, "text": text}})
    return uri


def end_position(text):
    """LSP position of the end of `text` (UTF-16 columns)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return {"line": len(lines) - 1, "character": len(lines[-1].encode("utf-16-le")) // 2}


def append(c, uri, old_text, added, version):
    at = end_position(old_text)
    c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                        "contentChanges": [{"range": {"start": at, "end": at}, "text": added}]})


def diagnostics_of_version(c, uri, version, after=0):
    while True:
        after, params = c.diagnostics_for(uri, after)
        if params.get("version") == version:
            return after, params["diagnostics"]
        after += 1


def healthy_lines(n):
    return "".join("step %d: loss %.4f lr 2.0e-05 tokens/s 51234\n" % (i, 2.0 - i * 1e-5) for i in range(n))


class GoldenLog(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.expect = golden_case.expectation()
        with open(golden_case.LOG, encoding="utf-8") as f:
            cls.text = f.read()
        cls.lines = cls.text.split("\n")
        cls.root_line = golden_case.expected_root_line(cls.lines, cls.expect)
        cls.native = golden_case.native_report(os.path.abspath(golden_case.LOG))
        cls.c, cls.caps = start()
        cls.uri = open_doc(cls.c, golden_case.LOG)
        _, params = cls.c.diagnostics_for(cls.uri)
        cls.diags = params["diagnostics"]

    @classmethod
    def tearDownClass(cls):
        assert stop(cls.c) == 0

    def test_capabilities(self):
        caps = self.caps["capabilities"]
        self.assertEqual(caps["textDocumentSync"]["change"], 2)
        self.assertTrue(caps["hoverProvider"])
        # copyText is the client's own command: never listed by the server
        self.assertNotIn("faultline.copyText", caps["executeCommandProvider"]["commands"])

    def test_root_is_an_error_on_the_line_of_the_expected_rank_and_type(self):
        errors = [d for d in self.diags if d["severity"] == ERROR]
        self.assertEqual(len(errors), 1, self.diags)
        root = errors[0]
        self.assertEqual(root["range"]["start"], {"line": self.root_line, "character": 0})
        self.assertEqual(root["range"]["end"]["line"], self.root_line)
        self.assertEqual(root["source"], "faultline")
        self.assertIn("(%s)" % self.expect["type"], root["message"])
        self.assertIn("rank %d" % self.expect["rank"], root["message"])
        self.assertIn("host %s" % self.expect["host"], root["message"])

    def test_collateral_is_information_with_its_reason_related_to_the_root(self):
        info = [d for d in self.diags if d["severity"] == INFORMATION]
        self.assertTrue(info)
        types = {t for t in self.expect["collateral_types"] if any("(%s)" % t in d["message"] for d in info)}
        self.assertEqual(types, set(self.expect["collateral_types"]))
        for d in info:
            self.assertNotEqual(d["range"]["start"]["line"], self.root_line)
            self.assertIn("Collateral: ", d["message"])
            rel = d["relatedInformation"][0]["location"]
            self.assertEqual((rel["uri"], rel["range"]["start"]["line"]), (self.uri, self.root_line))
        # a watchdog timeout of another rank is flagged on its own line
        timeout_lines = [d["range"]["start"]["line"] for d in info if "(nccl_timeout)" in d["message"]]
        self.assertTrue(any("Watchdog caught collective operation timeout" in self.lines[n] and
                            not self.lines[n].startswith("[rank%d]" % self.expect["rank"]) for n in timeout_lines))

    def test_hover_shows_the_entry_page(self):
        r = self.c.request("textDocument/hover", {"textDocument": {"uri": self.uri},
                                                  "position": {"line": self.root_line, "character": 2}})["result"]
        self.assertEqual(r["contents"]["kind"], "markdown")
        page = subprocess.run([golden_case.faultline_bin(), "explain", "--markdown", self.native["root"]["id"]],
                              capture_output=True, text=True, check=True).stdout
        self.assertIn(page.strip(), r["contents"]["value"])
        self.assertIn("rank %d" % self.expect["rank"], r["contents"]["value"])
        nothing = self.c.request("textDocument/hover", {"textDocument": {"uri": self.uri},
                                                        "position": {"line": 0, "character": 0}})["result"]
        self.assertIsNone(nothing)

    def test_code_actions_copy_the_native_reports_commands(self):
        rng = {"start": {"line": self.root_line, "character": 0}, "end": {"line": self.root_line, "character": 5}}
        actions = self.c.request("textDocument/codeAction", {"textDocument": {"uri": self.uri}, "range": rng,
                                                             "context": {"diagnostics": []}})["result"]
        copies = [(a["title"].split(":")[0], a["command"]["arguments"][0]) for a in actions
                  if a["command"]["command"] == "faultline.copyText"]
        want = [("Copy fix command", c["run"]) for c in self.native["fix"]["commands"]] + \
               [("Copy verification command", v["run"]) for v in self.native["verify"]]
        self.assertTrue(want)
        self.assertEqual(copies, want)
        shows = [a["command"]["arguments"] for a in actions if a["command"]["command"] == "faultline.showEntry"]
        self.assertEqual(shows, [[self.native["root"]["id"]]])

    def test_execute_command(self):
        text = self.native["fix"]["commands"][0]["run"]
        seen = len(self.c.notifications)
        r = self.c.request("workspace/executeCommand", {"command": "faultline.copyText", "arguments": [text]})
        self.assertEqual(r["result"], text)
        _, shown = self.c.wait_notification(lambda m: m["method"] == "window/showMessage", after=seen)
        self.assertEqual(shown["params"]["message"], text)
        page = self.c.request("workspace/executeCommand", {"command": "faultline.showEntry",
                                                           "arguments": [self.native["root"]["id"]]})["result"]
        self.assertTrue(page.startswith("# "))
        bad = self.c.request("workspace/executeCommand", {"command": "faultline.showEntry", "arguments": ["no-such"]})
        self.assertEqual(bad["error"]["code"], -32602)

    def test_report_request_is_the_native_report(self):
        r = self.c.request("faultline/report", {"textDocument": {"uri": self.uri}})["result"]
        self.assertEqual(r, self.native)
        self.assertEqual(self.c.request("faultline/report", {"uri": self.uri})["result"], self.native)


class Changes(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="fl-lsp-")
        self.path = os.path.join(self.tmp, "node-b.log")
        self.c, _ = start("--debounce-ms", "50")

    def tearDown(self):
        self.assertEqual(stop(self.c), 0)
        shutil.rmtree(self.tmp)

    def report_equals_native(self, uri, text):
        with open(self.path, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        got = self.c.request("faultline/report", {"textDocument": {"uri": uri}})["result"]
        self.assertEqual(got, golden_case.native_report(self.path))

    def stats(self, uri):
        return self.c.request("faultline/scanStats", {"textDocument": {"uri": uri}})["result"]

    def test_growing_log_prefix_is_not_matched_again(self):
        with open(golden_case.LOG, encoding="utf-8") as f:
            log = f.read()
        lines = log.split("\n")
        root = golden_case.expected_root_line(lines, golden_case.expectation())
        padding = healthy_lines(20000)
        pad_lines = padding.count("\n")
        # The log as the job writes it: up to the middle of the traceback, then
        # the rest in two appends, the first cut inside the OOM line.
        cut_line = "\n".join(lines[:root]) + "\n"
        oom = lines[root]
        text = padding + cut_line
        uri = open_doc(self.c, self.path, text, 1)
        after, diags = diagnostics_of_version(self.c, uri, 1)
        self.assertFalse([d for d in diags if d["severity"] == ERROR and d["range"]["start"]["line"] == pad_lines + root])
        before = self.stats(uri)
        self.assertGreaterEqual(before["matchedBytes"], len(text.encode()))
        part1, part2 = oom[:30], oom[30:] + "\n" + "\n".join(lines[root + 1:])
        append(self.c, uri, text, part1, 2)
        text += part1
        append(self.c, uri, text, part2, 3)
        text += part2
        after, diags = diagnostics_of_version(self.c, uri, 3, after)
        errors = [d for d in diags if d["severity"] == ERROR]
        self.assertEqual([d["range"]["start"]["line"] for d in errors], [pad_lines + root])
        now = self.stats(uri)
        self.assertEqual(now["indexRestarts"], 0)
        grown = len((part1 + part2).encode())
        # Matched again: at most the appended bytes, and for each diagnosis the
        # golden log's own lines (the only ones that can produce events) and
        # the unfinished last line; the 20000 healthy lines never.
        diagnoses = now["diagnoses"] - before["diagnoses"]
        self.assertLessEqual(now["matchedBytes"] - before["matchedBytes"], grown + diagnoses * 2 * len(log.encode()))
        self.assertLess(now["matchedBytes"] - before["matchedBytes"], len(padding) // 4)
        self.assertGreaterEqual(now["skippedBytes"] - before["skippedBytes"], len(padding))
        self.report_equals_native(uri, text)
        # A client that sends the whole text (full sync) and only added to it: still an append.
        more = "[rank4]:[I1026 04:02:00.000000000 ProcessGroupNCCL.cpp:1] shutting down\n"
        self.c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 4},
                                                 "contentChanges": [{"text": text + more}]})
        text += more
        diagnostics_of_version(self.c, uri, 4, after)
        self.assertEqual(self.stats(uri)["indexRestarts"], 0)
        self.report_equals_native(uri, text)

    def test_an_edit_diagnoses_from_scratch(self):
        with open(golden_case.LOG, encoding="utf-8") as f:
            log = f.read()
        lines = log.split("\n")
        root = golden_case.expected_root_line(lines, golden_case.expectation())
        uri = open_doc(self.c, self.path, log, 1)
        after, diags = diagnostics_of_version(self.c, uri, 1)
        self.assertEqual([d["range"]["start"]["line"] for d in diags if d["severity"] == ERROR], [root])
        # Delete the OOM line (an incremental edit in the middle): no OOM root any more.
        self.c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
            {"range": {"start": {"line": root, "character": 0}, "end": {"line": root + 1, "character": 0}}, "text": ""}]})
        edited = "\n".join(lines[:root] + lines[root + 1:])
        after, diags = diagnostics_of_version(self.c, uri, 2, after)
        self.assertEqual(self.stats(uri)["indexRestarts"], 1)
        self.report_equals_native(uri, edited)
        self.assertNotIn("CUDA out of memory", " ".join(d["message"] for d in diags if d["severity"] == ERROR))
        # A full replacement with other text.
        self.c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 3},
                                                 "contentChanges": [{"text": healthy_lines(10)}]})
        after, diags = diagnostics_of_version(self.c, uri, 3, after)
        self.assertEqual(diags, [])
        self.c.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        _, params = self.c.diagnostics_for(uri, after + 1)
        self.assertEqual(params["diagnostics"], [])

    def test_a_malformed_change_after_an_edit_still_leaves_a_right_diagnosis(self):
        with open(golden_case.LOG, encoding="utf-8") as f:
            log = f.read()
        uri = open_doc(self.c, self.path, log, 1)
        after, _ = diagnostics_of_version(self.c, uri, 1)
        # The first change (cut the first 30 lines) is applied, the second is malformed.
        self.c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
            {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 30, "character": 0}}, "text": ""},
            {"range": 5}]})
        self.report_equals_native(uri, "".join(log.splitlines(True)[30:]))

    def test_utf16_positions(self):
        # Non-ASCII before the change: "é" is 2 bytes / 1 UTF-16 unit, "😀" 4 bytes / 2 units.
        text = "héllo 😀 wörld\n"
        uri = open_doc(self.c, self.path, text, 1)
        after, _ = diagnostics_of_version(self.c, uri, 1)
        self.c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
            {"range": {"start": {"line": 0, "character": 9}, "end": {"line": 0, "character": 14}}, "text": "there"}]})
        diagnostics_of_version(self.c, uri, 2, after)
        self.report_equals_native(uri, "héllo 😀 there\n")


class SameReportAsNative(unittest.TestCase):
    """The server feeds a diagnoser only the lines that produced events and
    skips the others: on every golden log, opened whole and grown in three
    appends (one cut mid-line), its report must be the native command's."""

    def test_every_golden_log(self):
        logs = sorted(str(p) for p in pathlib.Path(golden_case.ROOT, "tests", "golden").rglob("*")
                      if p.is_file() and p.suffix in (".log", ".txt") and p.name != "README.txt")
        self.assertGreater(len(logs), 50)
        c, _ = start("--debounce-ms", "0")
        tmp = tempfile.mkdtemp(prefix="fl-lsp-same-")
        try:
            for i, log in enumerate(logs):
                with open(log, "rb") as f:
                    raw = f.read()
                text = raw.decode("utf-8", errors="replace")  # what an editor sends
                path = os.path.join(tmp, "%03d-%s" % (i, os.path.basename(log)))
                with open(path, "w", encoding="utf-8", newline="") as f:
                    f.write(text)
                native = golden_case.native_report(path)
                uri = open_doc(c, path, text[:len(text) // 3])
                have = text[:len(text) // 3]
                for part in (text[len(text) // 3:len(text) // 2], text[len(text) // 2:]):
                    append(c, uri, have, part, 2)
                    have += part
                got = c.request("faultline/report", {"textDocument": {"uri": uri}})["result"]
                with self.subTest(log=os.path.relpath(log, golden_case.ROOT)):
                    self.assertEqual(got, native)
                    self.assertEqual(c.request("faultline/scanStats", {"textDocument": {"uri": uri}})["result"]
                                     ["indexRestarts"], 0)
                c.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        finally:
            shutil.rmtree(tmp)
            self.assertEqual(stop(c), 0)


class Robustness(unittest.TestCase):
    def test_malformed_input_gets_errors_and_the_server_goes_on(self):
        c, _ = start("--max-document-mib", "1")
        try:
            def error_for(raw):
                seen = set(c.responses)
                c.send_raw(raw)
                deadline = time.monotonic() + 10
                while True:
                    new = [k for k in c.responses if k not in seen or k is None]
                    if None in c.responses:
                        return c.responses.pop(None)["error"]
                    if not c.pump(deadline) and time.monotonic() >= deadline:
                        raise TimeoutError(raw[:60])

            body = b"{not json"
            self.assertEqual(error_for(b"Content-Length: %d\r\n\r\n" % len(body) + body)["code"], -32700)
            body = b'{"jsonrpc":"2.0","id":7,"method":"x","params":"\xff\xfe"}'
            self.assertEqual(error_for(b"Content-Length: %d\r\n\r\n" % len(body) + body)["code"], -32700)
            body = b"[1,2]"
            self.assertEqual(error_for(b"Content-Length: %d\r\n\r\n" % len(body) + body)["code"], -32600)
            self.assertEqual(error_for(b"Content-Type: x\r\n\r\n")["code"], -32700)
            self.assertEqual(error_for(b"Content-Length: -5\r\n\r\n")["code"], -32700)
            self.assertEqual(error_for(b"X-Junk: " + b"a" * 20000 + b"\r\n\r\n")["code"], -32700)
            big = 4 << 20  # over the limit (1 MiB documents): passed over, not kept
            self.assertEqual(error_for(b"Content-Length: %d\r\n\r\n" % big + b" " * big)["code"], -32600)
            r = c.request("no/such/method", {})
            self.assertEqual(r["error"]["code"], -32601)
            r = c.request("textDocument/hover", {"textDocument": {"uri": "file:///not/open"},
                                                 "position": {"line": 0, "character": 0}})
            self.assertEqual(r["error"]["code"], -32602)
            r = c.request("textDocument/hover", {"position": 3})
            self.assertEqual(r["error"]["code"], -32602)
            # A binary document with control bytes, NULs and an escape sequence, and a huge one.
            binary = "".join(chr(i) for i in range(0, 32)) * 100 + "\x1b]0;title\x07[rank0]: CUDA error: out of memory\n"
            uri = open_doc(c, "/tmp/fl-binary.log", binary)
            _, params = c.diagnostics_for(uri)
            for d in params["diagnostics"]:
                self.assertFalse(any(ord(ch) < 32 for ch in d["message"]), d["message"])
            huge = "x" * (1 << 20) + "\n" + "y" * 10
            uri = open_doc(c, "/tmp/fl-huge.log", huge)
            _, params = c.diagnostics_for(uri)
            self.assertEqual(len(params["diagnostics"]), 1)
            self.assertIn("not diagnosed", params["diagnostics"][0]["message"])
            # A document that grows past the limit is let go, and taken back whole when it fits again.
            uri = open_doc(c, "/tmp/fl-growing.log", "line\n")
            after, _ = diagnostics_of_version(c, uri, 1)
            append(c, uri, "line\n", "z" * (1 << 20), 2)
            after, diags = diagnostics_of_version(c, uri, 2, after)
            self.assertIn("not diagnosed", diags[0]["message"])
            c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 3}, "contentChanges": [
                {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "x"}]})
            c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 4},
                                                "contentChanges": [{"text": "[rank0]: CUDA error: out of memory\n"}]})
            after, diags = diagnostics_of_version(c, uri, 4, after)
            self.assertTrue(diags and "not diagnosed" not in diags[0]["message"], diags)
            # still serving
            self.assertIn("result", c.request("faultline/scanStats", {"textDocument": {"uri": uri}}))
        finally:
            self.assertEqual(stop(c), 0)

    def test_mutated_messages_never_stop_the_server(self):
        """Valid messages with fields replaced by values of other types, huge
        numbers, negative positions, NULs: each is answered or ignored."""
        rng = random.Random(21)
        odd = [None, -1, 2 ** 70, -2 ** 70, "x", "", [], {}, 1.5, "\u0000\x1b[2J", True, "file:///%00%ff"]
        uri = "file:///tmp/fl-mutated.log"
        pos = {"line": 3, "character": 2}
        valid = [
            ("textDocument/didOpen", False, {"textDocument": {"uri": uri, "languageId": "log", "version": 1,
                                                              "text": "a\n[rank1]: CUDA error: out of memory\nb\n"}}),
            ("textDocument/didChange", False, {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
                {"range": {"start": pos, "end": pos}, "text": "tail\n"}, {"text": "whole\n"}]}),
            ("textDocument/hover", True, {"textDocument": {"uri": uri}, "position": pos}),
            ("textDocument/codeAction", True, {"textDocument": {"uri": uri}, "range": {"start": pos, "end": pos},
                                               "context": {"diagnostics": []}}),
            ("workspace/executeCommand", True, {"command": "faultline.showEntry", "arguments": ["cuda-out-of-memory"]}),
            ("faultline/report", True, {"uri": uri}),
            ("textDocument/didClose", False, {"textDocument": {"uri": uri}}),
        ]

        def mutate(v):
            if rng.random() < 0.15:
                return rng.choice(odd)
            if isinstance(v, dict):
                return {k: mutate(x) for k, x in v.items() if rng.random() > 0.05}
            if isinstance(v, list):
                return [mutate(x) for x in v]
            return v

        c, _ = start("--debounce-ms", "0")
        try:
            for n in range(600):
                method, is_request, params = rng.choice(valid)
                msg = {"jsonrpc": "2.0", "method": method, "params": mutate(params)}
                if is_request:
                    msg["id"] = 1000 + n
                c.send(mutate(msg) if rng.random() < 0.1 else msg)
            c.send({"jsonrpc": "2.0", "id": "last", "method": "faultline/report", "params": {"uri": "file:///none"}})
            r = c.wait_response("last", timeout=60)
            self.assertEqual(r["error"]["code"], -32602)
            self.assertIsNone(c.proc.poll())
        finally:
            self.assertEqual(stop(c), 0)

    def test_requests_before_initialize_and_after_shutdown(self):
        c = LspClient([golden_case.faultline_bin(), "lsp"])
        r = c.request("textDocument/hover", {})
        self.assertEqual(r["error"]["code"], -32002)
        c.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
        self.assertIsNone(c.request("shutdown", None)["result"])
        self.assertEqual(c.request("textDocument/hover", {})["error"]["code"], -32600)
        c.notify("exit", None)
        c.close()
        self.assertEqual(c.proc.returncode, 0)
        # exit without shutdown: status 1, as LSP says
        c = LspClient([golden_case.faultline_bin(), "lsp"])
        c.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
        c.notify("exit", None)
        c.close()
        self.assertEqual(c.proc.returncode, 1)


class PackReload(unittest.TestCase):
    def test_a_replaced_pack_file_is_reloaded_and_documents_diagnosed_again(self):
        flc = os.environ.get("FAULTLINE_FLC", os.path.join(golden_case.ROOT, "build", "compiler", "flc"))
        default_pack = os.environ.get("FAULTLINE_DEFAULT_PACK", os.path.join(golden_case.ROOT, "build", "default.flpack"))
        tmp = tempfile.mkdtemp(prefix="fl-lsp-pack-")
        try:
            small = os.path.join(tmp, "small.flpack")
            subprocess.run([flc, "compile", os.path.join(golden_case.ROOT, "tests", "data", "small-signatures"), "-o", small],
                           check=True, capture_output=True)
            pack = os.path.join(tmp, "pack.flpack")
            shutil.copyfile(default_pack, pack)
            c, _ = start("--pack", pack)
            uri = open_doc(c, golden_case.LOG)
            after, params = c.diagnostics_for(uri)
            ids = {d.get("code") for d in params["diagnostics"]}
            self.assertIn("nccl-watchdog-timeout", ids)
            # Replace the file as a release does (rename over it): the small pack knows only CUDA OOM.
            shutil.copyfile(small, pack + ".new")
            os.replace(pack + ".new", pack)
            _, shown = c.wait_notification(lambda m: m["method"] == "window/showMessage" and
                                           "pack reloaded" in m["params"]["message"], timeout=20, after=after)
            _, params = c.diagnostics_for(uri, after + 1)
            ids = {d.get("code") for d in params["diagnostics"]}
            self.assertEqual(ids, {"cuda-out-of-memory"})
            report = c.request("faultline/report", {"textDocument": {"uri": uri}})["result"]
            self.assertEqual(report["pack"]["entries"], 1)
            # A broken pack file is refused; the last good pack stays.
            with open(pack + ".new", "wb") as f:
                f.write(b"not a pack")
            os.replace(pack + ".new", pack)
            _, shown = c.wait_notification(lambda m: m["method"] == "window/showMessage" and
                                           "not loaded" in m["params"]["message"], timeout=20, after=after)
            report = c.request("faultline/report", {"textDocument": {"uri": uri}})["result"]
            self.assertEqual(report["pack"]["entries"], 1)
            self.assertEqual(stop(c), 0)
        finally:
            shutil.rmtree(tmp)


if __name__ == "__main__":
    unittest.main()
