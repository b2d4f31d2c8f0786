#!/usr/bin/env bash
# Opens the desktop app on the example recording under Xvfb (glow on Mesa's
# llvmpipe), checks that it loads the recording and keeps running, takes a
# screenshot (target/e2e/native.png when Python's Pillow is available),
# then closes it.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${PUFFIN_LENS_BIN:-target/${PUFFIN_LENS_PROFILE:-debug}/puffin-lens}
out=target/e2e
mkdir -p "$out"
display=":$((90 + RANDOM % 100))"
Xvfb "$display" -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
trap 'kill $app $xvfb 2>/dev/null || true' EXIT
sleep 1
DISPLAY=$display WAYLAND_DISPLAY='' LIBGL_ALWAYS_SOFTWARE=1 \
  "$bin" open samples/threads_demo.puffin >"$out/native.log" 2>&1 &
app=$!
for _ in $(seq 1 100); do
  grep -q "threads_demo.puffin: 504 scopes loaded" "$out/native.log" && break
  kill -0 "$app" 2>/dev/null || break
  sleep 0.2
done
sleep 2
if ! kill -0 "$app" 2>/dev/null; then
  echo "native smoke: the app exited early:" >&2
  cat "$out/native.log" >&2
  exit 1
fi
if ! grep -q "threads_demo.puffin: 504 scopes loaded" "$out/native.log"; then
  echo "native smoke: the recording was not loaded:" >&2
  cat "$out/native.log" >&2
  exit 1
fi
if grep -qi "panicked" "$out/native.log"; then
  cat "$out/native.log" >&2
  exit 1
fi
python3 - "$display" "$out/native.png" <<'PY' 2>/dev/null || echo "native smoke: no screenshot (Pillow missing)"
import sys
from PIL import ImageGrab
ImageGrab.grab(xdisplay=sys.argv[1]).save(sys.argv[2])
PY
echo "native smoke: the desktop app opened and loaded the example ($(grep -c . "$out/native.log") log lines)"
