#!/usr/bin/env bash
# The wheel where no Rust is: builds it (scripts/build-wheel.sh) unless a
# wheel is given, installs it with pip into a fresh venv whose PATH has no
# cargo, and runs what a `pip install puffin-lens` user runs: --version, a
# report of two real recordings, `mcp` (one `initialize` request answered
# in JSON) and `uvx --from WHEEL`.
# Usage: scripts/test-wheel.sh [target/wheels/puffin_lens-….whl]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

if [[ $# -ge 1 ]]; then
  wheel=$1
else
  scripts/build-wheel.sh
  wheel=$(ls target/wheels/puffin_lens-*.whl)
fi
[[ -f $wheel ]] || { echo "test-wheel.sh: no wheel $wheel" >&2; exit 1; }
wheel=$(cd "$(dirname "$wheel")" && pwd)/$(basename "$wheel")
echo "== $wheel ($(wc -c < "$wheel") bytes)"
fail() { echo "test-wheel.sh: $*" >&2; exit 1; }

# The interpreter itself (not a pyenv shim, which needs its PATH), then a
# PATH without Rust (no ~/.cargo/bin, no rustup) for everything below.
python=$(python3 -c 'import sys; print(sys.executable)')
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$python" -m venv "$work/venv"
PATH="$work/venv/bin:$(printf '%s' "$PATH" | tr ':' '\n' | grep -v -e '\.cargo' -e 'rustup' | paste -sd: -)"
export PATH
unset CARGO_HOME RUSTUP_HOME
if command -v cargo >/dev/null 2>&1 || command -v rustc >/dev/null 2>&1; then
  fail "cargo or rustc is on PATH: $(command -v cargo rustc)"
fi
echo "== a fresh venv, no cargo and no rustc on PATH"

pip install --quiet --no-index --disable-pip-version-check "$wheel"
exe=$(command -v puffin-lens) || fail "pip install put no puffin-lens on PATH"
[[ $exe == "$work/venv/bin/puffin-lens" ]] || fail "puffin-lens is $exe, not the venv's"
echo "== pip install: $exe"

version=$(puffin-lens --version)
echo "$version"
[[ $version == "puffin-lens "[0-9]* ]] || fail "--version printed: $version"
echo "version: ok"

puffin-lens report tests/fixtures/real/rerun_viewer_plots_a.puffin \
  tests/fixtures/real/rerun_viewer_plots_b.puffin > "$work/report.md"
head -1 "$work/report.md"
grep -q '^# puffin-lens report' "$work/report.md" || fail "report: no title"
grep -q '^## What changed (B against A)' "$work/report.md" || fail "report: no What changed"
echo "report: ok ($(wc -l < "$work/report.md") lines)"

# The help first, then grep: `--help | grep -q` could cut the pipe early.
help=$(puffin-lens --help)
if grep -qE '^ +mcp( |$)' <<<"$help"; then
  init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test-wheel","version":"0"}}}'
  printf '%s\n' "$init" | timeout 60 puffin-lens mcp > "$work/mcp.out" || fail "mcp exited $?"
  head -c 300 "$work/mcp.out"; echo
  # The answer to request 1, among whatever JSON lines the server wrote.
  python -c '
import json, sys
replies = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
assert any(r.get("jsonrpc") == "2.0" and r.get("id") == 1 and "result" in r for r in replies), replies
' "$work/mcp.out" || fail "mcp: no JSON-RPC result for initialize"
  echo "mcp: ok (initialize answered)"
else
  fail "mcp: the installed puffin-lens has no mcp subcommand"
fi

# uvx: uv from PyPI (its wheel holds the binary), installed once into
# target/uv-venv; run offline from the wheel with a fresh cache.
uv_venv=$root/target/uv-venv
if [[ ! -x $uv_venv/bin/uv ]]; then
  echo "== uv into $uv_venv (once)"
  if ! { "$python" -m venv "$uv_venv" \
         && "$uv_venv/bin/pip" install --quiet --disable-pip-version-check uv; }; then
    rm -rf "$uv_venv"
    echo "uvx: SKIPPED (uv did not install with pip)"
    echo "test-wheel.sh: the wheel installs and runs without Rust"
    exit 0
  fi
fi
uvx_version=$(UV_CACHE_DIR="$work/uv-cache" UV_PYTHON="$python" UV_PYTHON_DOWNLOADS=never \
  "$uv_venv/bin/uvx" --offline --from "$wheel" puffin-lens --version)
echo "$uvx_version"
[[ $uvx_version == "puffin-lens "[0-9]* ]] || fail "uvx printed: $uvx_version"
echo "uvx: ok"
echo "test-wheel.sh: the wheel installs and runs without Rust"
