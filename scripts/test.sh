#!/usr/bin/env bash
# README's test command: every test.
#  1. cargo test: engine, CLI, analyses, the app (egui_kittest), the query
#     API, live capture (a real puffin_http server), the Parquet export (SQL in
#     DuckDB; PySpark when installed), property tests, the fuzz corpora, a
#     hostile recording through every output; it also builds the native
#     binary and examples the browser tests run (one native build: debug);
#  2. the web app built with Trunk and tested in headless Chromium
#     (web/e2e.mjs: drop, summary/dumpJson/query against the native CLI,
#     damaged and broken files, ?url=, offline, no foreign requests, a hostile
#     recording's report), and under pressure (web/pressure.mjs: overlapping
#     loads, a file too large for the wasm memory);
#  3. the desktop app opened under Xvfb (scripts/native_smoke.sh);
#  4. the Python wheel (scripts/test-wheel.sh: built with maturin from the
#     debug build, installed with pip into a fresh venv without Rust, then
#     --version, a report, `mcp` and uvx).
# Screenshots and logs land in target/e2e/. Installs missing tools first.
# Prints how long each stage took at the end (also when one fails).
set -euo pipefail
cd "$(dirname "$0")/.."

stages=()
stage_start=$SECONDS
stage_name=""
stage() {
  if [[ -n $stage_name ]]; then
    stages+=("$(printf '%-56s %5d s' "$stage_name" $((SECONDS - stage_start)))")
  fi
  stage_name=$1
  stage_start=$SECONDS
  [[ -n $1 ]] && echo "== $1"
  return 0
}
report_times() {
  local status=$?
  stage ""
  echo "== time per stage (scripts/test.sh)"
  printf '%s\n' "${stages[@]}"
  printf '%-56s %5d s\n' "total" "$SECONDS"
  return $status
}
trap report_times EXIT

stage "setup (tools that are missing)"
scripts/setup.sh --browser

stage "cargo test (builds the binaries the browser tests run)"
cargo test --locked
if command -v java >/dev/null 2>&1 && python3 -c "import pyspark" 2>/dev/null; then
  echo "== examples/spark_fleet.py ran in cargo test (tests/parquet.rs)"
else
  echo "== examples/spark_fleet.py SKIPPED: no Java or no pyspark (scripts/setup.sh --fleet installs them)"
fi
stage "web app: trunk build --release (wasm-opt skipped: the Pages and release sites run it)"
PUFFIN_LENS_WASM_OPT=0 trunk build --release
stage "browser end-to-end test (headless Chromium)"
node web/e2e.mjs
stage "the browser under pressure"
node web/pressure.mjs
stage "desktop app under Xvfb"
scripts/native_smoke.sh
stage "the Python wheel in a fresh venv without Rust (from the debug build)"
PUFFIN_LENS_WHEEL_PROFILE=dev scripts/test-wheel.sh
