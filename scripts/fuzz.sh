#!/usr/bin/env bash
# Fuzzes the decoders and the query API with cargo-fuzz (nightly; libFuzzer
# with AddressSanitizer): every target for SECONDS each (default 60), or with
# RUNS=N for N executions each. Bounds: 2 GB of RSS, 512 MB per allocation
# (more than any bounded decode of these small inputs may need), 10 s per input.
#   scripts/fuzz.sh            # a minute each
#   scripts/fuzz.sh 3600       # an hour each
#   RUNS=200000 scripts/fuzz.sh   # N runs each from seed $SEED (default 1): what CI runs
#   SANITIZER=none TARGETS=decode scripts/fuzz.sh 7200
#                              # ~3x the executions, without ASan and its
#                              # per-allocation bound (the RSS bound stays)
# Findings land in fuzz/artifacts/<target>/; add them to fuzz/corpus/<target>/
# once fixed (tests/fuzz_corpora.rs replays the corpora on stable).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
if ! rustup toolchain list | grep -q '^nightly'; then
  echo "fuzz: no nightly toolchain: fuzzing SKIPPED (the corpora still run on stable in cargo test)"
  exit 0
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "fuzz: cargo-fuzz missing (scripts/setup.sh --fuzz installs it): fuzzing SKIPPED"
  exit 0
fi
[[ -d fuzz/corpus/decode ]] || cargo run --quiet --example fuzz_seeds
for target in ${TARGETS:-decode json query live}; do
  if [[ -n "${RUNS:-}" ]]; then
    # A fixed number of runs from a fixed seed (CI): the same inputs every time.
    limit=(-runs="$RUNS" -seed="${SEED:-1}")
    echo "== fuzz $target ($RUNS runs from seed ${SEED:-1})"
  else
    limit=(-max_total_time="$seconds")
    echo "== fuzz $target ($seconds s)"
  fi
  log="fuzz/$target.log"
  status=0
  # New inputs go to the (ignored) working corpus; the committed seeds and
  # regressions in fuzz/corpus/ are read only.
  mkdir -p "fuzz/corpus-work/$target"
  cargo +nightly fuzz run --sanitizer "${SANITIZER:-address}" --fuzz-dir fuzz "$target" "fuzz/corpus-work/$target" "fuzz/corpus/$target" -- \
    "${limit[@]}" -rss_limit_mb=2048 -malloc_limit_mb=512 -timeout=10 -print_final_stats=1 \
    >"$log" 2>&1 || status=$?
  grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb|Done [0-9]+ runs)" "$log" || true
  if ((status != 0)); then
    tail -40 "$log" >&2
    echo "fuzz: $target failed (exit $status): see $log and fuzz/artifacts/$target/" >&2
    exit 1
  fi
done
