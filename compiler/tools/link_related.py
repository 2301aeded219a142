#!/usr/bin/env python3
"""Adds the back-links `related` is missing, so every link goes both ways.

flc lint warns when entry A lists B under `related` and B does not list A.
This rewrites B's one-line `related: [...]` list with A appended; nothing else
in the file changes. Usage: link_related.py [SIGNATURES_DIR] [--check]
(--check: only report, exit 1 when a link is missing).
"""
import pathlib
import re
import sys

RELATED = re.compile(r"^related:\s*\[(?P<ids>[^\]]*)\]\s*$", re.M)


def read_related(text):
    m = RELATED.search(text)
    if not m:
        return None
    return [x.strip() for x in m.group("ids").split(",") if x.strip()]


def main(argv):
    check = "--check" in argv
    args = [a for a in argv if a != "--check"]
    root = pathlib.Path(args[0] if args else "signatures")
    files = {}
    for path in sorted(root.glob("*/*.yaml")):
        if path.parent.name in ("framing", "taxonomies"):
            continue
        text = path.read_text()
        ids = read_related(text)
        if ids is None:
            sys.exit(f"{path}: no one-line 'related: [...]' list; add the back-links by hand")
        files[path.stem] = (path, text, ids)
    missing = {}
    for entry, (_, _, ids) in files.items():
        for other in ids:
            if other in files and entry not in files[other][2]:
                missing.setdefault(other, []).append(entry)
    for other, back in sorted(missing.items()):
        path, text, ids = files[other]
        print(f"{path}: related += {', '.join(back)}")
        if check:
            continue
        line = "related: [" + ", ".join(ids + sorted(back)) + "]"
        path.write_text(RELATED.sub(lambda _: line, text, count=1))
    return 1 if check and missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
