#!/usr/bin/env bash
# Times `collsim run` on the README's 16,384-GPU example (issue 20: 1,000 simulated runs in
# under 10 s) at 1,000, 10,000 and 100,000 runs per estimate; each command also scans 25
# checkpoint intervals, so it simulates 26 x that many runs. Prints a Markdown table.
# Usage: scripts/bench_goodput.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
collsim=${COLLSIM:-$root/build/collsim}
args=(run --gpus 16384 --step-time 5s --steps 100000 --mtbf-gpu 50000h --checkpoint-write 5min --restart 10min)
echo "$(nproc) cores, load average at start $(cut -d' ' -f1 /proc/loadavg); commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)."
echo
echo "| --runs | runs simulated (26 estimates) | wall (s) | runs per second | goodput (MC) | goodput (closed form) |"
echo "|---:|---:|---:|---:|---:|---:|"
TIMEFORMAT='%R'
for runs in 1000 10000 100000; do
  out=$(mktemp)
  t=$( { time "$collsim" "${args[@]}" --runs $runs --format json >"$out"; } 2>&1 )
  read -r g c < <(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(f\"{100*d['goodput']:.3f} {100*d['goodput_closed_form']:.3f}\")" "$out")
  rm -f "$out"
  echo "| $runs | $((runs * 26)) | $t | $(python3 -c "print(f'{$runs * 26 / $t:,.0f}')") | $g % | $c % |"
done
