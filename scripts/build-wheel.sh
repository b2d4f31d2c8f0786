#!/usr/bin/env bash
# The `puffin-lens` binary as a Python wheel (pyproject.toml: maturin with
# `bindings = "bin"`), in target/wheels/: `pip install target/wheels/*.whl`
# puts the command-line and desktop binary on PATH, no Rust needed there.
# Built with Cargo.toml's [profile.dist] (stripped, whole-program optimized:
# the release binaries' profile; `--release` would mean [profile.release],
# which keeps line tables) and the default features (the desktop app: eframe
# and winit load X11, Wayland and GL at run time, so the binary links only
# glibc, libm and libgcc_s and passes maturin's manylinux (auditwheel)
# check: built here on glibc 2.36 it is manylinux_2_35 (hypot's symbol
# version); in the release workflow's manylinux2014 container (glibc 2.17)
# it should be manylinux_2_17).
# maturin: the one on PATH, else one installed once into target/maturin-venv.
# PUFFIN_LENS_WHEEL_PROFILE=dev builds it from the debug build instead (what
# scripts/test.sh does: cargo test has built it, so the wheel takes seconds;
# the 20 MB bound is the dist wheel's, and is checked only for it).
# Usage: scripts/build-wheel.sh [more `maturin build` options, e.g. --target …]
set -euo pipefail
cd "$(dirname "$0")/.."

if command -v maturin >/dev/null 2>&1; then
  maturin=maturin
else
  venv=target/maturin-venv
  if [[ ! -x $venv/bin/maturin ]]; then
    echo "== maturin into $venv (once)"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check 'maturin>=1.9,<2'
  fi
  maturin=$venv/bin/maturin
fi
echo "== $("$maturin" --version)"

# Only this build's wheel in target/wheels/ (an older version's would be
# picked up by `pip install target/wheels/*.whl` too).
rm -f target/wheels/puffin_lens-*.whl
# `--auditwheel check`: a library outside the manylinux policy fails the
# build (maturin's default would copy it into the wheel).
profile=${PUFFIN_LENS_WHEEL_PROFILE:-dist}
"$maturin" build --profile "$profile" --locked --auditwheel check --out target/wheels "$@"

for wheel in target/wheels/puffin_lens-*.whl; do
  bytes=$(wc -c < "$wheel")
  echo "== $wheel: $(awk -v b="$bytes" 'BEGIN { printf "%.1f MB", b / 1e6 }')"
  if [[ $profile == dist ]] && (( bytes > 20 * 1000 * 1000 )); then
    echo "build-wheel.sh: $wheel is over 20 MB" >&2
    exit 1
  fi
done
