#!/usr/bin/env bash
# The tree all-reduce's steady-state estimate (sim/coll/tree_estimate.hpp) against its full
# replay, on every shipped topology whose replay finishes in minutes, at 1 MiB to 1 GiB with
# NCCL's protocol choice. The estimate is forced with COLLSIM_TREE_REPLAY_BUDGET=1, the replay
# with --exact; one run each, pinned to one core, whole process. Writes
# results/bench/tree_estimate.md (or OUT).
# Usage: scripts/bench_tree_estimate.sh [--collsim build/collsim] [--out FILE]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
collsim=$root/build/collsim
out=$root/results/bench/tree_estimate.md
while (($#)); do
  case $1 in
    --collsim) collsim=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "usage: $0 [--collsim PATH] [--out FILE]" >&2; exit 2 ;;
  esac
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=bench_estimate_lib.sh
source "$root/scripts/bench_estimate_lib.sh"  # pin, run

{
  echo "# The tree's steady-state estimate against its full replay"
  echo
  echo "Reproduce: \`scripts/bench_tree_estimate.sh\` (writes this file)."
  echo
  echo "Machine: $(nproc) cores, load average at start: $(cut -d' ' -f1-3 /proc/loadavg). Commit: $(git -C "$root" rev-parse --short HEAD)."
  echo "\`collsim collective --topology FILE --algo tree --protocol auto --sizes SIZE\`: replay with \`--exact\`,"
  echo "estimate with \`COLLSIM_TREE_REPLAY_BUDGET=1\`. Error = estimate / replay - 1. The default path"
  echo "uses the estimate only where it is the replay's own time (error 0, every edge at its solo"
  echo "rate) or where the replay's work passes the budget (2^33 transfers x ranks): of the"
  echo "topologies below, only the 16,384-GPU fat tree (and the 131,072-GPU cluster, whose replay"
  echo "is refused)."
  echo
  echo "| topology | size | replay (us) | estimate (us) | error | replay wall s | estimate wall s |"
  echo "|---|---|---:|---:|---:|---:|---:|"
  for file in "$root"/topologies/*.json; do
    name=$(basename "$file" .json)
    sizes="1MiB 8MiB 64MiB 1GiB"
    case $name in
      h100-rail-131072) continue ;;         # replay refused (COLLSIM_MAX_REPLAY_WORK)
      h100-fat-tree-16384) sizes="1MiB 1GiB" ;;  # the 1 GiB replay takes minutes
    esac
    for size in $sizes; do
      read -r replay_ps replay_wall < <(run "$collsim" collective --topology "$file" --algo tree --protocol auto --sizes "$size" --exact)
      read -r est_ps est_wall < <(COLLSIM_TREE_REPLAY_BUDGET=1 run "$collsim" collective --topology "$file" --algo tree --protocol auto --sizes "$size")
      awk -v n="$name" -v s="$size" -v r="$replay_ps" -v e="$est_ps" -v rw="$replay_wall" -v ew="$est_wall" \
        'BEGIN { printf "| %s | %s | %.2f | %.2f | %+.2f %% | %s | %s |\n", n, s, r / 1e6, e / 1e6, (e / r - 1) * 100, rw, ew }'
    done
  done
} >"$tmp/table"
mv "$tmp/table" "$out"
echo "wrote $out"
