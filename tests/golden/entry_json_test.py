#!/usr/bin/env python3
"""faultline explain --format json (FL_PAGE_JSON): every entry of the pack as
JSON that parses, names the entries the pack's accessors name (faultline
list), and says what the entry's Markdown page says, field by field."""
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

import flrun

FLC = os.path.join(os.path.dirname(flrun.BIN), "compiler", "flc")
DEFAULT_PACK = os.path.join(os.path.dirname(flrun.BIN), "default.flpack")


def all_entries(*pack_args):
    r = flrun.run(["explain", "--all", "--format", "json", *pack_args])
    if r.returncode != 0:
        raise AssertionError(r.stderr.decode())
    return json.loads(r.stdout)


def markdown(entry_id, *pack_args):
    r = flrun.run(["explain", "--format", "markdown", *pack_args, entry_id])
    if r.returncode != 0:
        raise AssertionError(r.stderr.decode())
    return r.stdout.decode()


def safe(text):
    """Pack text as the pages show it: control bytes but newlines as '?'."""
    return re.sub(r"[\x00-\x09\x0b-\x1f\x7f]", "?", text)


def expected_markdown_lines(e):
    """What the Markdown page of entry `e` must hold, written from the JSON."""
    want = [
        "# " + safe(e["title"]) + "\n",
        f"`{e['id']}` · type `{e['type']}` · category `{e['category']}` · severity {e['severity']} "
        f"· role {e['role']} · action {e['action']}\n",
        "## Summary\n" + safe(e["summary"]) + "\n",
        "## Mechanism\n" + safe(e["mechanism"]) + "\n",
        "## Root cause\n" + safe(e["root_cause"]) + "\n",
        "## Alert on\n" + safe(e["fingerprint"]) + "\n",
    ]
    want += [f"- **{a['question']}** {safe(a['text'])}\n" for a in e["answers"]]
    want += [f"- `{safe(s['observe'])}`\n  {safe(s['why'])}\n" for s in e["symptoms"]]
    want += ["- " + safe(c) + "\n" for c in e["confirm"] + e["prevention"]]
    want += [f"{i}. {safe(step)}\n" for i, step in enumerate(e["fix_steps"], 1)]
    want += [f"```sh\n{c['run']}\n```\n{safe(c['explain'])}\n" for c in e["fix_commands"]]
    want += [f"```sh\n{v['run']}\n```\nExpect: {safe(v['expect'])}\n" for v in e["verify"]]
    want += [f"### {x['stack_name']}\n" for x in e["code_examples"]]
    want += [f"- {v['component']} {v['range']}: {safe(v['note'])}\n" for v in e["versions"]]
    want += [f"- `{p['name']}`: `{p['regex']}`\n  Source: {safe(p['source'])}\n" for p in e["patterns"]]
    want += [f"- `{r['id']}` ({r['severity']}): {safe(r['title'])}\n" for r in e["related"]]
    want += [f"- `{c['id']}`\n" for c in e["causes"]]
    want += [f"- [{r['title']}]({r['url']})\n" for r in e["references"]]
    if e["pack"]["source_path"]:
        want.append(f"_Source: `signatures/{e['pack']['source_path']}`_\n")
    return want


class EntryJson(unittest.TestCase):
    def test_every_entry_parses_and_matches_the_accessors(self):
        entries = all_entries()
        listed = flrun.run(["list"]).stdout.decode().splitlines()
        self.assertGreater(len(entries), 50)
        self.assertEqual(len(entries), len(listed))
        for e, line in zip(entries, listed):
            # faultline list prints fl_pack_entry_id/type/category/title.
            self.assertEqual(line.split(None, 3), [e["id"], e["type"], e["category"], e["title"]])
            self.assertIn(e["severity"], ("info", "low", "medium", "high", "critical"))
            self.assertEqual(e["pack"]["library"], "faultline")
            self.assertFalse(e["pack"]["replaces"])
            self.assertTrue(e["patterns"] or e["deprecated"], e["id"])
        ids = {e["id"] for e in entries}
        self.assertEqual(len(ids), len(entries))
        for e in entries:
            for r in e["related"] + e["causes"]:
                self.assertIn(r["id"], ids)

    def test_one_entry_equals_its_place_in_all(self):
        entries = all_entries()
        for e in entries[:: max(1, len(entries) // 12)]:
            r = flrun.run(["explain", "--format", "json", e["id"]])
            self.assertEqual(r.returncode, 0)
            self.assertEqual(json.loads(r.stdout), e)

    def test_json_says_what_the_markdown_page_says(self):
        for e in all_entries():
            page = markdown(e["id"])
            for want in expected_markdown_lines(e):
                self.assertIn(want, page, f"{e['id']}: the page lacks {want[:120]!r}")

    def test_related_carry_their_own_title_and_severity(self):
        entries = {e["id"]: e for e in all_entries()}
        linked = [(e, r) for e in entries.values() for r in e["related"]]
        self.assertGreater(len(linked), 20)
        for e, r in linked:
            self.assertEqual((r["title"], r["severity"]), (entries[r["id"]]["title"], entries[r["id"]]["severity"]))

    def test_stack_provenance(self):
        # The example site library over ours: its entries name their pack,
        # the one that overrides ours says so, as the Markdown page does.
        example = os.path.join(flrun.ROOT, "docs", "site-library-example")
        with tempfile.TemporaryDirectory() as tmp:
            site = os.path.join(tmp, "site.flpack")
            r = subprocess.run([FLC, "compile", example, "--base", DEFAULT_PACK, "-o", site], capture_output=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            args = ["--pack", "default", "--pack", site]
            entries = all_entries(*args)
            libraries = {e["pack"]["library"] for e in entries}
            self.assertEqual(len(libraries), 2)
            replacing = [e for e in entries if e["pack"]["replaces"]]
            self.assertTrue(replacing)
            for e in replacing:
                self.assertNotEqual(e["pack"]["library"], "faultline")
                self.assertIn(f"From the pack `{e['pack']['library']}`, in place of", markdown(e["id"], *args))

    def test_hostile_pack_text_stays_data(self):
        # Pack text is untrusted: a title with markup and a summary with an
        # escape byte come out as JSON strings, escaped, and parse back.
        src = os.path.join(flrun.ROOT, "signatures", "memory", "cuda-out-of-memory.yaml")
        with tempfile.TemporaryDirectory() as tmp:
            os.makedirs(os.path.join(tmp, "memory"))
            replace = {
                "title": 'title: "OOM </script><img src=x onerror=alert(1)> \\"q\\""',
                "root_cause": 'root_cause: "bell\\a and escape\\e[31m red"',
                "related": "related: []",
                "causes": "causes: []",
            }
            lines, skipping = [], False
            with open(src) as f:
                for line in f.read().splitlines():
                    key = line.split(":")[0]
                    if key in replace and not line.startswith(" "):
                        lines.append(replace[key])
                        skipping = True  # the key's folded block, if any
                        continue
                    if skipping and (line.startswith(" ") or not line):
                        continue
                    skipping = False
                    lines.append(line)
            with open(os.path.join(tmp, "memory", "cuda-out-of-memory.yaml"), "w") as f:
                f.write("\n".join(lines) + "\n")
            pack = os.path.join(tmp, "p.flpack")
            r = subprocess.run([FLC, "compile", tmp, "-o", pack], capture_output=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            r = flrun.run(["explain", "--format", "json", "--pack", pack, "cuda-out-of-memory"])
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertNotIn(b"\x1b", r.stdout)
            self.assertNotIn(b"\x07", r.stdout)
            e = json.loads(r.stdout)
            self.assertEqual(e["title"], 'OOM </script><img src=x onerror=alert(1)> "q"')
            self.assertEqual(e["root_cause"], "bell\x07 and escape\x1b[31m red")

    def test_bad_usage(self):
        self.assertEqual(flrun.run(["explain", "--format", "html", "cuda-out-of-memory"]).returncode, 2)
        self.assertEqual(flrun.run(["explain", "--all", "cuda-out-of-memory"]).returncode, 2)
        self.assertEqual(flrun.run(["explain"]).returncode, 2)
        self.assertEqual(flrun.run(["explain", "--format", "json", "no-such-entry"]).returncode, 2)


if __name__ == "__main__":
    unittest.main()
