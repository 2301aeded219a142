#!/usr/bin/env python3
"""Every entry needs a must-not-match line taken from a real healthy log.

Lists the entries none of whose `tests.no_match` lines occurs (trimmed) in the
healthy logs of HEALTHY_DIR. With --add, appends to each of them the healthy
line that shares the rarest words with the entry's must-match lines: a near
miss the entry must keep not matching. `flc test` then proves it does not; a
line it does match is a false positive to look at, not a test to delete.

Usage: healthy_near_misses.py SIGNATURES_DIR HEALTHY_DIR [--add]
Exit status 1 when an entry lacks one (without --add).
"""
import collections
import json
import math
import pathlib
import re
import sys

import yaml

WORD = re.compile(r"[A-Za-z][A-Za-z_]{3,}")
MAX_LINE = 240
# Source code the training scripts print (some logs start with their script):
# real lines, but not what a near miss of a log message should be.
CODE = re.compile(r"^(#|def |return |import |from |print\(|for |if |[\w.\[\]]+ = )")


def healthy_lines(root):
    """Every trimmed line of the healthy logs, and the ones fit to become a test
    (printable ASCII, not too long, not printed source code)."""
    lines, candidates = set(), set()
    for path in sorted(pathlib.Path(root).glob("*")):
        if path.is_file() and path.suffix != ".md":
            with path.open(errors="replace", newline="") as f:  # keep the carriage returns
                text = f.read()
            for raw in text.split("\n"):
                # A progress bar redrawn with carriage returns: each redraw is a
                # line, with or without the log prefix written before the first.
                parts = raw.rstrip("\r").split("\r")
                for part in parts[1:]:
                    lines.add(part.strip())
                    lines.add((parts[0] + part).strip())
                line = parts[-1].strip() if len(parts) > 1 else raw.strip()
                lines.add(line)
                if 8 <= len(line) <= MAX_LINE and all(32 <= ord(c) < 127 for c in line) and not CODE.match(line):
                    candidates.add(line)
    return lines, candidates


def test_lines(items):
    return [x if isinstance(x, str) else x.get("line", "") for x in items or []]


def best_near_miss(entry, lines, index, df, total):
    """The healthy line sharing the most informative words with the entry's
    patterns (counted twice) and examples; among equals, the shortest."""
    weights = collections.Counter()
    for p in entry["patterns"]:
        for w in WORD.findall(re.sub(r"\\[a-zA-Z]", " ", p["regex"])):
            weights[w.lower()] += 2
    for line in test_lines(entry["tests"]["match"]):
        for w in set(WORD.findall(line)):
            weights[w.lower()] += 1
    scores = collections.Counter()
    for w, times in weights.items():
        if w in index and df[w] < total * 0.02:  # a word many lines have says nothing
            for i in index[w]:
                scores[i] += min(times, 3) * math.log(total / df[w])
    if not scores:
        return None
    top = max(scores.values())
    return min((lines[i] for i, v in scores.items() if v == top), key=len)


def insert_no_match(path, line):
    text = path.read_text().splitlines(keepends=True)
    start = next((i for i, l in enumerate(text) if l.strip() == "no_match:"), None)
    if start is None:
        return False
    end = start + 1
    while end < len(text) and text[end].startswith("    - "):
        end += 1
    text.insert(end, "    - " + json.dumps(line) + "\n")
    path.write_text("".join(text))
    return True


def main(argv):
    add = "--add" in argv
    args = [a for a in argv if a != "--add"]
    if len(args) != 2:
        sys.exit(__doc__)
    sigs = pathlib.Path(args[0])
    healthy, candidates = healthy_lines(args[1])
    lines = sorted(candidates)
    index, df = collections.defaultdict(list), collections.Counter()
    for i, line in enumerate(lines):
        for w in set(x.lower() for x in WORD.findall(line)):
            index[w].append(i)
            df[w] += 1
    missing = 0
    for path in sorted(sigs.glob("*/*.yaml")):
        if path.parent.name in ("framing", "taxonomies"):
            continue
        entry = yaml.safe_load(path.read_text())
        if any(x.strip() in healthy for x in test_lines(entry["tests"].get("no_match"))):
            continue
        missing += 1
        if not add:
            print(f"{path}: no must-not-match line from a healthy log")
            continue
        line = best_near_miss(entry, lines, index, df, len(lines))
        if line and insert_no_match(path, line):
            print(f"{path}: + {line}")
        else:
            print(f"{path}: no healthy line shares a word with its examples; add one by hand")
    return 1 if missing and not add else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
