#!/bin/bash
# Benchmark of `collsim llm --search` (issue 19's plan benchmark): layouts of Llama 2 7B, 70B
# and Mixtral 8x7B searched on the rail-optimised DGX H100 cluster (8 x 400G NDR per host) at
# several GPU counts, each search timed. Prints a Markdown table of layouts evaluated, wall
# time and peak memory per search and in all; scripts/bench_llm_search.sh >> results/bench/plan.md
# records it. --with-2048 adds Llama 2 70B on 2048 GPUs (the longest search by far).
# Usage: scripts/bench_llm_search.sh [--with-2048] [collsim binary]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
big=0
if [[ ${1:-} == --with-2048 ]]; then
  big=1
  shift
fi
collsim=${1:-$root/build/collsim}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
runs=("llama2-7b 64 512" "llama2-7b 128 1024" "llama2-7b 256 1024" "mixtral-8x7b 64 512" "mixtral-8x7b 128 1024"
      "mixtral-8x7b 256 1024" "llama2-70b 512 1024" "llama2-70b 1024 1024")
((big)) && runs+=("llama2-70b 2048 2048")
echo "| model | GPUs | global batch | layouts evaluated | fit in HBM | pruned | best layout | best MFU | wall (s) | max RSS (MiB) |"
echo "|---|---:|---:|---:|---:|---:|---|---:|---:|---:|"
total=0 wall_total=0
for r in "${runs[@]}"; do
  read -r model gpus batch <<<"$r"
  /usr/bin/time -f "%e %M" -o "$tmp/time" "$collsim" llm --search --model "$model" --topology 16x-dgx-h100-rail-8x400g-ib \
    --gpus "$gpus" --global-batch "$batch" --top 1 --format json >"$tmp/out.json"
  read -r wall rss <"$tmp/time"
  python3 - "$tmp/out.json" "$model" "$gpus" "$batch" "$wall" "$rss" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
best = d["layouts"][0]
print(f"| {sys.argv[2]} | {sys.argv[3]} | {sys.argv[4]} | {d['evaluated']} | {d['fitting']} | {d['pruned']} | "
      f"{best['layout']} mb{best['micro_batch']} {best['recompute']}{' SP' if best['sequence_parallel'] else ''}"
      f"{' ZeRO-1' if best['distributed_optimizer'] else ''} | {best['mfu']:.3f} | {float(sys.argv[5]):.1f} | {int(sys.argv[6]) // 1024} |")
PY
  n=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['evaluated'])" "$tmp/out.json")
  total=$((total + n))
  wall_total=$(python3 -c "print(round($wall_total + $wall, 1))")
done
echo
echo "In all: $total layouts evaluated in $wall_total s wall ($(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg) at the end; commit $(git -C "$root" rev-parse --short HEAD))."
