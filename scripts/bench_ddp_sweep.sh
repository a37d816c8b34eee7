#!/usr/bin/env bash
# Times the acceptance sweep: ResNet-50, 20 bucket sizes x 6 world sizes (8..1024 GPUs) on
# the generated cluster (hosts of 8 H100 on NVSwitch, one 400 Gb/s NIC per GPU), through the
# CLI. Prints one markdown table row per run: wall, user and system seconds, and the load
# average at the start (the machine is shared; user time is the less noisy figure).
# Usage: scripts/bench_ddp_sweep.sh [RUNS] [extra collsim sweep options, e.g. --exact]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
collsim=${COLLSIM:-$root/build/collsim}
runs=${1:-3}
shift || true
buckets=1,2,3,4,5,6,8,10,12,16,20,25,32,40,50,64,80,100,128,200
ranks=8,32,128,256,512,1024
echo "| run | wall (s) | user (s) | sys (s) | load avg (1 min) at start | extra options |"
echo "|---|---|---|---|---|---|"
for i in $(seq 1 "$runs"); do
  load=$(cut -d' ' -f1 /proc/loadavg)
  TIMEFORMAT='%R %U %S'
  t=$( { time "$collsim" sweep --workload resnet50 --bucket-mb "$buckets" --ranks "$ranks" "$@" --format csv >/tmp/collsim_bench_sweep.csv; } 2>&1 )
  read -r wall user sys <<<"$t"
  rows=$(($(wc -l </tmp/collsim_bench_sweep.csv) - 1))
  [[ $rows == 120 ]] || { echo "expected 120 rows, got $rows" >&2; exit 1; }
  echo "| $i | $wall | $user | $sys | $load | $* |"
done
