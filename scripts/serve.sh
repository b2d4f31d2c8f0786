#!/usr/bin/env bash
# README's main command: builds the web app and serves it on
# http://127.0.0.1:8080/ (installing the wasm target, Trunk and
# wasm-bindgen-cli first if they are missing). Click "Try an example".
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
echo "puffin-lens: building; then open http://127.0.0.1:8080/ and click \"Try an example\"" >&2
exec trunk serve --release --address 127.0.0.1 --port "${PORT:-8080}"
