#!/usr/bin/env bash
# Times acceptance 3 of issue 8: `collsim plan plans/dgx-h100-clusters.json --report DIR`
# (all combinations, the report and its PNG plots) with --jobs 2, as the 2-core target
# says. Prints one markdown table row per run: wall, user and system seconds, the load
# average at the start (the machine is shared), the row count and whether PNGs were drawn.
# Usage: scripts/bench_plan.sh [RUNS] [extra collsim plan options]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
collsim=${COLLSIM:-$root/build/collsim}
runs=${1:-3}
shift || true
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "| run | wall (s) | user (s) | sys (s) | load avg (1 min) at start | rows | PNGs | extra options |"
echo "|---|---|---|---|---|---|---|---|"
for i in $(seq 1 "$runs"); do
  rm -rf "$out/report"
  load=$(cut -d' ' -f1 /proc/loadavg)
  TIMEFORMAT='%R %U %S'
  t=$( { time "$collsim" plan "$root/plans/dgx-h100-clusters.json" --jobs 2 --report "$out/report" "$@" \
           --format csv >"$out/plan.csv" 2>"$out/err"; } 2>&1 )
  read -r wall user sys <<<"$t"
  rows=$(($(wc -l <"$out/plan.csv") - 1))
  pngs=$(find "$out/report" -name '*.png' | wc -l)
  echo "| $i | $wall | $user | $sys | $load | $rows | $pngs | $* |"
done
