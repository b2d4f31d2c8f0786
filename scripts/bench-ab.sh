#!/usr/bin/env bash
# The numbers of docs/statistics.md, "Paired runs on a real app": sessions
# of `puffin-lens ab --until-decided` on examples/ab_app.rs (real work on
# the real clock, served with puffin_http), for four builds B against the
# same A:
#   same        the same build (A/A): how often the gate fails (never, we
#               claim) and how often it stays undecided;
#   slower      physics::step 10% more work a call (about 20% of the frame);
#   more-often  ai::plan twice a frame;
#   everything  every scope 10% more work (a change, not the machine's drift).
# Each session's answer (exit status, pairs it took, what it said of the
# planted scope) is one line of target/bench-ab/results.tsv, and a table
# per scenario is printed at the end.
#
#   scripts/bench-ab.sh                 # 20 A/A sessions, 10 of each other
#   SESSIONS=3 scripts/bench-ab.sh      # 3 of each (a quick look)
#   HOG=1 scripts/bench-ab.sh           # beside a CPU hog (a busy loop per core)
#   SCENARIOS="same slower" FRAMES=300 MAX_RUNS=10 LIMIT=1 scripts/bench-ab.sh
#   scripts/bench-ab.sh cost            # what recording adds to the app's work
#
# Environment: SESSIONS (every scenario; default 20 for same, 10 others),
# SCENARIOS, FRAMES (180 a run), WARMUP (30), FIRST (3 pairs), MAX_RUNS (10
# pairs), LIMIT (the gate, percent of A's mean frame: 1), PORT (8590), HOG.
set -euo pipefail
cd "$(dirname "$0")/.."

frames=${FRAMES:-180}
warmup=${WARMUP:-30}
first=${FIRST:-3}
max_runs=${MAX_RUNS:-10}
limit=${LIMIT:-1}
port=${PORT:-8590}
scenarios=${SCENARIOS:-same slower more-often everything}
work=target/bench-ab
mkdir -p "$work"

cargo build --release --locked --bin puffin-lens --example ab_app >&2
lens=target/release/puffin-lens
app=target/release/examples/ab_app

# `scripts/bench-ab.sh cost`: what recording adds to the app's own work.
# The app runs 600 frames alone, then 600 while `puffin-lens record` takes
# its frames, alternately, 5 times each; its mean work a frame each time.
if [[ ${1:-} == cost ]]; then
  alone=() recorded=()
  for k in 1 2 3 4 5; do
    alone+=("$(AB_APP_FRAMES=600 "$app" "127.0.0.1:$port" 2>/dev/null)")
    rm -f "$work/cost.puffin"
    (for _ in $(seq 100); do
       "$lens" record "127.0.0.1:$port" --frames 100000 -o "$work/cost.puffin" >/dev/null 2>&1 && break
       sleep 0.05
     done) &
    rec=$!
    recorded+=("$(AB_APP_FRAMES=600 "$app" "127.0.0.1:$port" 2>/dev/null)")
    wait "$rec" || true
  done
  python3 - "${alone[*]}" "${recorded[*]}" <<'EOF'
import statistics, sys
a = [float(x) for x in sys.argv[1].split()]
r = [float(x) for x in sys.argv[2].split()]
ma, mr = statistics.median(a), statistics.median(r)
print(f"mean work a frame, alone: {' '.join(f'{x:.3f}' for x in a)} ms (median {ma:.3f})")
print(f"while recorded:          {' '.join(f'{x:.3f}' for x in r)} ms (median {mr:.3f})")
print(f"recording adds {100 * (mr / ma - 1):+.1f}% to the app's own work")
EOF
  exit 0
fi

hogs=()
stop_hogs() {
  for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null || true; done
}
trap stop_hogs EXIT
if [[ ${HOG:-0} == 1 ]]; then
  for _ in $(seq "$(nproc)"); do
    (while :; do :; done) &
    hogs+=($!)
  done
  echo "== beside a CPU hog: ${#hogs[@]} busy loop(s)" >&2
fi
label=$([[ ${HOG:-0} == 1 ]] && echo hog || echo quiet)

results=$work/results-$label.tsv
printf 'scenario\tsession\texit\tpairs\tseconds\tplanted\tshared_change\tload\n' >"$results"
for scenario in $scenarios; do
  n=${SESSIONS:-$([[ $scenario == same ]] && echo 20 || echo 10)}
  plant=$([[ $scenario == same ]] && echo "" || echo "--plant $scenario")
  for s in $(seq "$n"); do
    out=$work/$label-$scenario-$s
    rm -rf "$out"
    t0=$SECONDS
    set +e
    "$lens" ab --a "$app 127.0.0.1:$port" --b "$app 127.0.0.1:$port $plant" \
      --addr "127.0.0.1:$port" --frames "$frames" --warmup "$warmup" \
      --until-decided --runs "$first" --max-runs "$max_runs" \
      --fail-on-regression "$limit" --format json -o "$out.json" --out "$out" 2>"$out.log"
    status=$?
    set -e
    secs=$((SECONDS - t0))
    # What the session said: the pairs it took, the planted scope's
    # verdict and kind, and whether a shared change was named.
    read -r pairs planted shared < <(python3 - "$out" "$out.json" "$scenario" <<'EOF'
import json, sys
out, report, scenario = sys.argv[1:]
pairs = json.load(open(out + "/manifest.json"))["runs_per_side"]
try:
    c = json.load(open(report))["comparison"]
except Exception:
    print(pairs, "no-report", "-"); sys.exit()
name = {"slower": "physics::step", "more-often": "ai::plan"}.get(scenario, "physics::step")
row = next((r for r in c["rows"] if r["name"] == name), None)
planted = f'{row["change"]["kind"]}' if row else ("inconclusive" if name in c["inconclusive"]["names"] else "unchanged")
d = c.get("drift") or {}
shared = f'{d.get("pct", 0):+.1f}%' + ("(named)" if d.get("named") else "")
print(pairs, planted, shared)
EOF
)
    # The machine's load over the last minute: what else ran beside it.
    load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo -)
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$scenario" "$s" "$status" "$pairs" "$secs" "$planted" "$shared" "$load" | tee -a "$results" >&2
  done
done

python3 - "$results" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
print("| scenario | sessions | gate failed (4) | passed (0) | undecided (5) | other | pairs (median, max) | planted scope judged | minutes a session (median) |")
print("| --- | ---: | ---: | ---: | ---: | ---: | --- | --- | ---: |")
for sc in dict.fromkeys(r["scenario"] for r in rows):
    rs = [r for r in rows if r["scenario"] == sc]
    ex = [r["exit"] for r in rs]
    pairs = sorted(int(r["pairs"]) for r in rs)
    kinds = {}
    for r in rs:
        kinds[r["planted"]] = kinds.get(r["planted"], 0) + 1
    kinds = ", ".join(f"{k} {v}" for k, v in sorted(kinds.items()))
    mins = statistics.median(int(r["seconds"]) for r in rs) / 60
    other = sum(e not in ("0", "4", "5") for e in ex)
    print(f"| {sc} | {len(rs)} | {ex.count('4')} | {ex.count('0')} | {ex.count('5')} | {other} | {statistics.median(pairs):g}, {pairs[-1]} | {kinds} | {mins:.1f} |")
EOF
