#!/usr/bin/env bash
# Retakes the README's pictures (docs/images/): records the planted game
# loop (tests/common/planted.rs, through puffin's own API), opens it in the
# built site (run `trunk build --release` first) in headless Chromium as the
# browser tests do, and writes the PNGs reduced to 256 colours (Pillow).
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
PLANTED_OUT="$work" cargo test --quiet --test judgement the_gate_fails_on_regressions_only >/dev/null
node web/screenshots.mjs "$work/a.puffin" "$work/b.puffin" "$work/shots"
mkdir -p docs/images
for png in "$work"/shots/*.png; do
  python3 - "$png" "docs/images/$(basename "$png")" <<'PY'
import sys
from PIL import Image
Image.open(sys.argv[1]).convert("RGB").quantize(256).save(sys.argv[2], optimize=True)
PY
done
ls -l docs/images/
