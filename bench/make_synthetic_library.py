#!/usr/bin/env python3
"""A synthetic signature library N times the size of signatures/, for measuring
how the matcher scales with the number of entries (bench/run --library).

Every real entry is kept, and N-1 variants of it are added: the same regexes
and test lines with the letters g-z and G-Z renamed by a permutation of their
own (a-f and A-F stay, so hexadecimal classes keep their meaning). Renaming
letters in the literal text of a regex and in every test line alike keeps each
example's verdict and captures: classes are renamed member by member (a range
that the renaming would not map onto itself makes the variant skipped), escapes,
group syntax and counts are left as they are. The variants' keys are thus as
long and as specific as real ones, but spelled in no real log: what a library
ten times larger would add.

A test line that stands behind a log prefix (torchrun's "[rank3]: ") is renamed
too, and the framing formats, which are kept as they are, no longer peel it: the
few variants whose examples depend on that are left out after `flc test` says
so, and the script reports how many.

  bench/make_synthetic_library.py --factor 10 -o build-bench/synthetic [--flc build/compiler/flc]
"""
import argparse
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

MOVED = "ghijklmnopqrstuvwxyz"


def permutation(seed):
    """A renaming of g-z (and the same of G-Z); every other byte stays."""
    rng = random.Random(seed)
    target = list(MOVED)
    while True:
        rng.shuffle(target)
        if all(a != b for a, b in zip(MOVED, target)):
            break
    table = {}
    for a, b in zip(MOVED, target):
        table[a] = b
        table[a.upper()] = b.upper()
    return table


def rename_text(text, table):
    return "".join(table.get(c, c) for c in text)


class Unmappable(Exception):
    pass


def rename_class(body, table):
    """The inside of [...]: single members renamed, ranges kept when the renaming maps them onto themselves."""
    out, i = [], 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            # \xHH, \d, \s, \w, \], \\ ... (an escaped letter is a class or an escape, never a literal letter)
            m = re.match(r"\\x[0-9a-fA-F]{2}", body[i:])
            step = len(m.group(0)) if m else 2
            out.append(body[i:i + step])
            i += step
            continue
        if i + 2 < len(body) and body[i + 1] == "-" and body[i + 2] != "]":
            lo, hi = c, body[i + 2]
            members = {chr(x) for x in range(ord(lo), ord(hi) + 1)}
            if {table.get(m, m) for m in members} != members:
                raise Unmappable(f"range {lo}-{hi}")
            out.append(body[i:i + 3])
            i += 3
            continue
        out.append(table.get(c, c))
        i += 1
    return "".join(out)


def rename_regex(rx, table):
    out, i = [], 0
    while i < len(rx):
        c = rx[i]
        if c == "\\" and i + 1 < len(rx):
            m = re.match(r"\\x[0-9a-fA-F]{2}", rx[i:])
            step = len(m.group(0)) if m else 2
            out.append(rx[i:i + step])
            i += step
        elif c == "[":
            j = i + 1
            if j < len(rx) and rx[j] == "^":
                j += 1
            if j < len(rx) and rx[j] == "]":
                j += 1
            while j < len(rx) and rx[j] != "]":
                j += 2 if rx[j] == "\\" else 1
            head = "[^" if rx[i + 1:i + 2] == "^" else "["
            body = rx[i + len(head):j]
            out.append(head + rename_class(body, table) + "]")
            i = j + 1
        elif rx.startswith("(?", i):
            m = re.match(r"\(\?(?:P?<[A-Za-z_][A-Za-z0-9_]*>|[a-zA-Z]*\)|[a-zA-Z]*:|)", rx[i:])
            out.append(m.group(0))
            i += len(m.group(0))
        elif c == "{":
            m = re.match(r"\{\d*(?:,\d*)?\}", rx[i:])
            step = len(m.group(0)) if m else 1
            out.append(rx[i:i + step] if m else c)
            i += step
        else:
            out.append(table.get(c, c))
            i += 1
    return "".join(out)


def rename_tests(tests, table):
    def one(t):
        if isinstance(t, str):
            return rename_text(t, table)
        t = dict(t)
        t["line"] = rename_text(t["line"], table)
        if "captures" in t and t["captures"]:
            t["captures"] = {k: rename_text(str(v), table) for k, v in t["captures"].items()}
        return t
    return {k: [one(t) for t in v] for k, v in (tests or {}).items()}


def variant(entry, k, table):
    e = dict(entry)
    e["id"] = f"{entry['id']}-syn{k}"
    e["title"] = f"[synthetic {k}] {entry['title']}"
    e["patterns"] = []
    for p in entry["patterns"]:
        p = dict(p)
        p["regex"] = rename_regex(p["regex"], table)
        e["patterns"].append(p)
    e["tests"] = rename_tests(entry.get("tests"), table)
    # The graph stays among real entries: a variant is nobody's relative.
    e["related"] = []
    e["causes"] = []
    return e


def flc_failures(flc, out):
    """Files whose examples fail under flc test."""
    r = subprocess.run([flc, "test", str(out)], capture_output=True, text=True)
    bad = set()
    for line in (r.stdout + r.stderr).splitlines():
        m = re.match(r"(\S+\.yaml):\d+", line)
        if m and r.returncode != 0:
            bad.add(Path(m.group(1)).resolve())
    return r.returncode, bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--signatures", default=str(Path(__file__).resolve().parent.parent / "signatures"))
    ap.add_argument("--factor", type=int, default=10)
    ap.add_argument("--flc", default="build/compiler/flc")
    ap.add_argument("-o", "--out", required=True)
    args = ap.parse_args()
    src, out = Path(args.signatures), Path(args.out)
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(src, out)
    made = skipped = 0
    for path in sorted(src.rglob("*.yaml")):
        rel = path.relative_to(src)
        if rel.parts[0] in ("framing", "taxonomies"):
            continue
        entry = yaml.safe_load(path.read_text())
        for k in range(1, args.factor):
            try:
                v = variant(entry, k, permutation(k))
            except Unmappable:
                skipped += 1
                continue
            target = out / rel.parent / f"{rel.stem}-syn{k}.yaml"
            target.write_text(yaml.safe_dump(v, sort_keys=False, allow_unicode=True, width=1 << 20))
            made += 1
    dropped = 0
    for _ in range(5):
        rc, bad = flc_failures(args.flc, out)
        bad = {b for b in bad if "-syn" in b.name}
        if rc == 0:
            break
        if not bad:
            sys.exit(f"flc test fails on {out} outside the variants: see `{args.flc} test {out}`")
        for b in bad:
            b.unlink()
        dropped += len(bad)
    real = sum(1 for p in src.rglob("*.yaml") if p.relative_to(src).parts[0] not in ("framing", "taxonomies"))
    total = real + made - dropped
    print(f"{out}: {total} entries ({real} real, {made - dropped} variants; {skipped} variants not made: a class range "
          f"the renaming moves; {dropped} left out: examples behind a log prefix)")


if __name__ == "__main__":
    main()
