#!/usr/bin/env python3
"""Every relative link and picture in README.md and docs/*.md resolves to a
file of the repository, and every `#anchor` to a heading of its file (as
GitHub makes heading anchors). Web addresses are not fetched (offline).

Exit 0 when all resolve, 1 with the broken ones listed (file:line)."""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.chdir(ROOT)

LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)|<img[^>]*\ssrc=\"([^\"]+)\"")


def slug(heading):
    """GitHub's anchor of a heading."""
    text = re.sub(r"`([^`]*)`", r"\1", heading.strip().lower())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    found, counts, fence = set(), {}, False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            fence = not fence
        if fence:
            continue
        m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            s = slug(m.group(1))
            n = counts.get(s, 0)
            found.add(s if n == 0 else f"{s}-{n}")
            counts[s] = n + 1
    return found


files = ["README.md", *sorted(glob.glob("docs/**/*.md", recursive=True))]
broken = []
checked = 0
for md in files:
    fence = False
    for no, line in enumerate(open(md, encoding="utf-8"), 1):
        if line.startswith("```"):
            fence = not fence
        if fence:
            continue
        for m in LINK.finditer(re.sub(r"`[^`]*`", "", line)):
            target = m.group(1) or m.group(2)
            if re.match(r"[a-z]+:", target):
                continue  # https:, mailto:: not fetched
            checked += 1
            path, _, anchor = target.partition("#")
            full = os.path.normpath(os.path.join(os.path.dirname(md), path)) if path else md
            if path and not os.path.exists(full):
                broken.append(f"{md}:{no}: {target}: no such file")
            elif anchor and full.endswith(".md") and anchor not in anchors(full):
                broken.append(f"{md}:{no}: {target}: no such heading")
print(f"check_links.py: {checked} links in {len(files)} files, {len(broken)} broken")
for b in broken:
    print(b)
sys.exit(1 if broken else 0)
