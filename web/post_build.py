#!/usr/bin/env python3
"""Trunk post_build hook (see Trunk.toml).

1. Release builds: optimizes the .wasm with wasm-opt (from npm `binaryen`,
   installed in web/node_modules, or any on PATH), if present, unless
   PUFFIN_LENS_WASM_OPT=0 (the test command's build: the browser tests need
   the app, not its smallest size; the Pages and release sites keep it).
2. Stamps sw.js with a hash of the build's files and their list, so every
   build has its own service-worker cache.
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys

staging = os.environ.get("TRUNK_STAGING_DIR")
if not staging:
    sys.exit("post_build.py: TRUNK_STAGING_DIR is not set (run through trunk)")
root = os.path.dirname(os.path.abspath(__file__))

if os.environ.get("TRUNK_PROFILE") == "release" and os.environ.get("PUFFIN_LENS_WASM_OPT") == "0":
    print("post_build.py: PUFFIN_LENS_WASM_OPT=0: the .wasm is left unoptimized", file=sys.stderr)
elif os.environ.get("TRUNK_PROFILE") == "release":
    local = os.path.join(root, "node_modules", ".bin", "wasm-opt")
    wasm_opt = local if os.path.exists(local) else shutil.which("wasm-opt")
    for name in sorted(os.listdir(staging)):
        if not name.endswith(".wasm"):
            continue
        path = os.path.join(staging, name)
        if wasm_opt is None:
            print(f"post_build.py: wasm-opt not found, {name} left unoptimized", file=sys.stderr)
            break
        # A function with one caller is inlined only when small: Chromium
        # compiles each function on its first call, on the page's thread,
        # whole; with it unlimited, start-up compiled 2.4 MB of code before
        # a 200k-scope file was shown instead of 1.9 MB (same file size).
        subprocess.run(
            [wasm_opt, "-O2", "--one-caller-inline-max-function-size", "100",
             "--enable-bulk-memory", "--enable-nontrapping-float-to-int", "--enable-sign-ext",
             "--enable-mutable-globals", "--enable-reference-types", "--enable-multivalue",
             path, "-o", path],
            check=True,
        )

# Every file of the site, subfolders (icons/) too, as relative URLs.
files = sorted(
    os.path.relpath(os.path.join(folder, name), staging).replace(os.sep, "/")
    for folder, _, names in os.walk(staging)
    for name in names
    if not (folder == staging and name == "sw.js")
)
digest = hashlib.sha256()
for name in files:
    digest.update(name.encode())
    with open(os.path.join(staging, name), "rb") as f:
        digest.update(f.read())
build_id = digest.hexdigest()[:16]

sw = os.path.join(staging, "sw.js")
with open(sw, encoding="utf-8") as f:
    text = f.read()
text = text.replace("__BUILD_ID__", build_id).replace("__FILES__", json.dumps(files))
with open(sw, "w", encoding="utf-8") as f:
    f.write(text)
print(f"post_build.py: build {build_id}, {len(files)} files precached")
