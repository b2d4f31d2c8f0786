#!/usr/bin/env bash
# README's test command: every test.
#  1. cargo test: engine, CLI, analyses, the app (egui_kittest), the query API,
#     live capture (a real puffin_http server), the Parquet export (SQL in
#     DuckDB; PySpark when installed), property tests, the fuzz corpora;
#  2. the web app built with Trunk and tested in headless Chromium
#     (web/e2e.mjs: drop, summary/dumpJson/query against the native CLI,
#     damaged and broken files, ?url=, offline, no foreign requests), and
#     under pressure (web/pressure.mjs: overlapping loads, a file too large
#     for the wasm memory);
#  3. the desktop app opened under Xvfb (scripts/native_smoke.sh).
# Screenshots and logs land in target/e2e/. Installs missing tools first.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --browser

echo "== cargo test"
cargo test --locked
if command -v java >/dev/null 2>&1 && python3 -c "import pyspark" 2>/dev/null; then
  echo "== examples/spark_fleet.py ran in cargo test (tests/parquet.rs)"
else
  echo "== examples/spark_fleet.py SKIPPED: no Java or no pyspark (scripts/setup.sh --fleet installs them)"
fi
echo "== web app: trunk build --release"
cargo build --locked --release --bin puffin-lens --example live_demo --example capture
trunk build --release
echo "== browser end-to-end test (headless Chromium)"
node web/e2e.mjs
echo "== the browser under pressure (overlapping loads, too large for wasm memory)"
node web/pressure.mjs
echo "== desktop app under Xvfb"
scripts/native_smoke.sh
