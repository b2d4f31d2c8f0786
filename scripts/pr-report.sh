#!/usr/bin/env bash
# The pull-request check's report (action.yml): `puffin-lens report BEFORE
# AFTER --format md` written to OUT (default puffin-lens-report.md) and
# appended to the job summary ($GITHUB_STEP_SUMMARY), with `report=OUT`,
# `tripped=true|false` and `inconclusive=true|false` (the gate could not tell:
# exit 5) in $GITHUB_OUTPUT. Without FAIL_ON_REGRESSION the
# summary says it reported without a gate.
#
# BEFORE and AFTER are each a recording, or glob patterns (space-separated) of
# several runs of one side: with more than one recording a side, the report
# is `report A1 A2 --vs B1 B2` (the noise model then uses the runs' spread).
#
# Usage: scripts/pr-report.sh BEFORE AFTER [OUT]
# Env: PUFFIN_LENS (the binary; default puffin-lens on PATH), FAIL_ON_REGRESSION
# (a percentage; empty: no gate), MIN_MS, FAIL_ON_DRIFT (a percentage: fail on
# the run-to-run drift itself too), FAIL_ON_P99 (a percentage of A's P99 frame:
# the tail gate).
# Exit: 0 reported (the gate's verdict is the `tripped` and `inconclusive`
# outputs: the action fails the job after commenting), 1 unusable input, 2
# usage error.
set -uo pipefail
if (($# < 2)); then
  echo "usage: scripts/pr-report.sh BEFORE AFTER [OUT]" >&2
  exit 2
fi
before=$1 after=$2 out=${3:-puffin-lens-report.md}
bin=${PUFFIN_LENS:-puffin-lens}
summary=${GITHUB_STEP_SUMMARY:-/dev/null}
output=${GITHUB_OUTPUT:-/dev/null}

# The recordings a side's patterns match, sorted (a pattern that is a file
# stands for itself); none is a usage error.
expand() {
  local side=$1 patterns=$2 p f
  local -a found=()
  read -ra pats <<<"$patterns"
  for p in "${pats[@]}"; do
    # A file, or a path without glob characters (a missing one is
    # puffin-lens's to name): itself.
    if [[ -e $p || $p != *[*?[]* ]]; then
      found+=("$p")
      continue
    fi
    while IFS= read -r f; do
      found+=("$f")
    done < <(compgen -G "$p" | LC_ALL=C sort)
  done
  if ((${#found[@]} == 0)); then
    echo "::error title=puffin-lens::no recording matches $side: $patterns" >&2
    return 2
  fi
  printf '%s\n' "${found[@]}"
}
mapfile -t a_runs < <(expand before "$before") && ((${#a_runs[@]})) || exit 2
mapfile -t b_runs < <(expand after "$after") && ((${#b_runs[@]})) || exit 2
if ((${#a_runs[@]} == 1 && ${#b_runs[@]} == 1)); then
  args=(report "${a_runs[0]}" "${b_runs[0]}")
else
  args=(report "${a_runs[@]}" --vs "${b_runs[@]}")
fi
args+=(--format md -o "$out")
if [[ -n ${FAIL_ON_REGRESSION:-} ]]; then
  args+=(--fail-on-regression "$FAIL_ON_REGRESSION")
  [[ -n ${MIN_MS:-} ]] && args+=(--min-ms "$MIN_MS")
fi
[[ -n ${FAIL_ON_DRIFT:-} ]] && args+=(--fail-on-drift "$FAIL_ON_DRIFT")
[[ -n ${FAIL_ON_P99:-} ]] && args+=(--fail-on-p99 "$FAIL_ON_P99")
errors=$(mktemp)
"$bin" "${args[@]}" 2>"$errors"
status=$?
cat "$errors" >&2

case $status in
  0 | 3 | 4 | 5)
    cat "$out" >>"$summary"
    if [[ -z ${FAIL_ON_REGRESSION:-} ]]; then
      # shellcheck disable=SC2016 # Markdown backticks, not a command.
      printf '\n_Reported without a gate: set `fail-on-regression` to fail the job on a regression._\n' >>"$summary"
    fi
    if ((status == 3)); then
      echo "::warning title=puffin-lens::a recording is damaged: reported from its intact frames"
    fi
    tripped=false inconclusive=false
    ((status == 4)) && tripped=true
    ((status == 5)) && inconclusive=true
    {
      echo "report=$out"
      echo "tripped=$tripped"
      echo "inconclusive=$inconclusive"
    } >>"$output"
    rm -f "$errors"
    exit 0
    ;;
  *)
    echo "::error title=puffin-lens::$(head -n 1 "$errors")"
    rm -f "$errors"
    exit "$status"
    ;;
esac
