#!/usr/bin/env bash
# The pull-request check's `ab` mode (action.yml, `run:`): the base revision
# and the head (the checkout) built with BUILD, each in its own tree, then
# run alternately on this machine by `puffin-lens ab` (A = base, B = head)
# and judged as pairs. The report goes to OUT (default
# puffin-lens-report.md) and the job summary ($GITHUB_STEP_SUMMARY), with the
# runs it took; `report=OUT`, `tripped=…`, `inconclusive=…` and `runs=DIR` go
# to $GITHUB_OUTPUT, as scripts/pr-report.sh writes them.
#
# Usage: scripts/pr-ab.sh BASE_REF [OUT]
# Env:
#   BUILD   the build command, run in each revision's tree (empty: none)
#   RUN     the command that runs a build, from its tree: it writes its
#           recording to {out}, or serves puffin_http at ADDR
#   ADDR, FRAMES, WARMUP   with ADDR: record each run from the app's server
#   RUNS    pairs of runs (5; with MAX_RUNS, the first look's: 3)
#   MAX_RUNS  record until the gate is decided, at most this many pairs
#   FAIL_ON_REGRESSION, MIN_MS   the gate (a percentage of A's mean frame)
#   FAIL_ON_P99                  the tail gate (a percentage of A's P99 frame)
#   RUNS_DIR  where the runs are kept (puffin-lens-ab-runs)
#   PUFFIN_LENS  the binary (default puffin-lens on PATH)
# Each tree's build and runs see CARGO_TARGET_DIR=<tree>/target, so that
# the two builds never overwrite each other's binaries.
# Exit: 0 judged (the gate's verdict is in the outputs), 1 a build or a run
# failed (the runs before it are kept in RUNS_DIR), 2 usage error.
set -uo pipefail
if (($# < 1)) || [[ -z ${RUN:-} ]]; then
  echo "usage: RUN='CMD {out}' [BUILD=CMD] scripts/pr-ab.sh BASE_REF [OUT]" >&2
  exit 2
fi
base_ref=$1 out=${2:-puffin-lens-report.md}
bin=${PUFFIN_LENS:-puffin-lens}
summary=${GITHUB_STEP_SUMMARY:-/dev/null}
output=${GITHUB_OUTPUT:-/dev/null}
runs_dir=${RUNS_DIR:-puffin-lens-ab-runs}
head_tree=$(pwd)

if ! git rev-parse --verify --quiet "$base_ref^{commit}" >/dev/null; then
  echo "::error title=puffin-lens::the base revision $base_ref is not in this checkout (fetch it: actions/checkout with fetch-depth: 0)" >&2
  exit 2
fi
base_tree=$(mktemp -d)/base
# shellcheck disable=SC2329 # called by the trap
cleanup() { git worktree remove --force "$base_tree" >/dev/null 2>&1 || true; }
trap cleanup EXIT
git worktree add --quiet --detach "$base_tree" "$base_ref" || exit 1

# A command run in `tree`, with its own target folder.
in_tree() {
  local tree=$1 cmd=$2
  printf 'cd %q && CARGO_TARGET_DIR=%q %s' "$tree" "$tree/target" "$cmd"
}
if [[ -n ${BUILD:-} ]]; then
  for tree in "$base_tree" "$head_tree"; do
    echo "== building $( [[ $tree == "$base_tree" ]] && echo "the base ($base_ref)" || echo "the head") with: $BUILD" >&2
    bash -c "$(in_tree "$tree" "$BUILD")" || {
      echo "::error title=puffin-lens::the build failed in $tree: $BUILD"
      exit 1
    }
  done
fi

args=(ab --a "$(in_tree "$base_tree" "$RUN")" --b "$(in_tree "$head_tree" "$RUN")"
  --out "$runs_dir" --force --format md -o "$out")
if [[ -n ${ADDR:-} ]]; then
  args+=(--addr "$ADDR")
  [[ -n ${FRAMES:-} ]] && args+=(--frames "$FRAMES")
  [[ -n ${WARMUP:-} ]] && args+=(--warmup "$WARMUP")
fi
[[ -n ${RUNS:-} ]] && args+=(--runs "$RUNS")
if [[ -n ${FAIL_ON_REGRESSION:-} ]]; then
  args+=(--fail-on-regression "$FAIL_ON_REGRESSION")
  [[ -n ${MIN_MS:-} ]] && args+=(--min-ms "$MIN_MS")
  [[ -n ${MAX_RUNS:-} ]] && args+=(--until-decided --max-runs "$MAX_RUNS")
fi
[[ -n ${FAIL_ON_P99:-} ]] && args+=(--fail-on-p99 "$FAIL_ON_P99")
errors=$(mktemp)
"$bin" "${args[@]}" 2> >(tee "$errors" >&2)
status=$?
wait
pairs=$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); print(sum(r.get("recorded", False) for r in m["runs"]) // 2)' "$runs_dir/manifest.json" 2>/dev/null || echo 0)

case $status in
  0 | 3 | 4 | 5)
    cat "$out" >>"$summary"
    # shellcheck disable=SC2016 # Markdown backticks, not a command.
    printf '\n_Judged from %s pairs of runs, base (%s) and head alternating on this runner (A B B A …); every run is kept in `%s` with its manifest._\n' \
      "$pairs" "$base_ref" "$runs_dir" >>"$summary"
    tripped=false inconclusive=false
    ((status == 4)) && tripped=true
    ((status == 5)) && inconclusive=true
    {
      echo "report=$out"
      echo "tripped=$tripped"
      echo "inconclusive=$inconclusive"
      echo "runs=$runs_dir"
    } >>"$output"
    rm -f "$errors"
    exit 0
    ;;
  *)
    echo "::error title=puffin-lens::$(grep -m1 'error' "$errors" || head -n 1 "$errors")"
    rm -f "$errors"
    ((status == 2)) && exit 2
    exit 1
    ;;
esac
