#!/usr/bin/env bash
# Google Benchmark micro-benchmarks of the engine core (event queue, max-min solver) and
# of topology loading/routing; writes results/bench/micro.md. Usage: scripts/bench_micro.sh [--out FILE]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/results/bench/micro.md"
[[ ${1:-} == --out ]] && out=$2
"$root/scripts/build.sh" >/dev/null
bench="$root/build/tests/bench/collsim_bench"
{
  echo "# Micro-benchmarks (Google Benchmark)"
  echo
  echo "Reproduce: \`scripts/bench_micro.sh\`. Machine: $(nproc) cores, load average at start: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo "Median of 3 repetitions; items/s counts events (event queue) or flows (max-min incast)."
  echo
  echo '```'
  taskset -c 0 "$bench" --benchmark_filter='EventQueue|MaxMin' --benchmark_repetitions=3 \
    --benchmark_report_aggregates_only=true 2>/dev/null | grep -E '^Benchmark|_median'
  echo '```'
} >"$out"
echo "bench_micro: wrote $out" >&2
