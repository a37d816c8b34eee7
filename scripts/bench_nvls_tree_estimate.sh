#!/usr/bin/env bash
# NVLSTree's steady-state estimate (sim/coll/nvls_tree_estimate.hpp) against its full replay
# on DGX H100 clusters whose replay finishes in minutes: 1,024 GPUs on a rail-optimised and
# on a fat-tree 8 x 400G IB fabric (the shipped h100-fat-tree-1024), 4,096 GPUs rail-optimised
# (the h100-rail-131072 fabric at 512 hosts), at 25 MiB, 125 MiB and 1 GiB. The estimate is
# forced with COLLSIM_TREE_REPLAY_BUDGET=1, the replay with --exact; one run each, pinned to
# one core. Writes results/bench/nvls_tree_estimate.md (or OUT).
# Usage: scripts/bench_nvls_tree_estimate.sh [--collsim build/collsim] [--out FILE]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
collsim=$root/build/collsim
out=$root/results/bench/nvls_tree_estimate.md
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

# A rail-optimised DGX H100 cluster of $2 hosts, the fabric of topologies/h100-rail-131072.json.
rail() {
  cat >"$tmp/$1.json" <<JSON
{"name": "$1", "description": "$(( $2 * 8 )) H100 GPUs: $2 x DGX H100, 8 x 400 Gb/s NDR IB, rail-optimised as h100-rail-131072",
 "generator": {"kind": "cluster", "hosts": $2, "server": {"kind": "dgx_h100"},
  "fabric": {"kind": "rail_optimized", "link_kind": "ib", "nic_bandwidth": "400Gbps", "nics_per_leaf": 32, "spines": 64,
             "oversubscription": 1}}}
JSON
  echo "$tmp/$1.json"
}

topologies=("$(rail h100-rail-1024 128)" "$root/topologies/h100-fat-tree-1024.json" "$(rail h100-rail-4096 512)")
{
  echo "# NVLSTree's steady-state estimate against its full replay"
  echo
  echo "Reproduce: \`scripts/bench_nvls_tree_estimate.sh\` (writes this file)."
  echo
  echo "Machine: $(nproc) cores, load average at start: $(cut -d' ' -f1-3 /proc/loadavg). Commit: $(git -C "$root" rev-parse --short HEAD)."
  echo "\`collsim collective --topology FILE --algo nvls_tree --protocol simple --sizes SIZE\`: replay with"
  echo "\`--exact\`, estimate with \`COLLSIM_TREE_REPLAY_BUDGET=1\`. Error = estimate / replay - 1. The"
  echo "rail-optimised clusters are generated as \`topologies/h100-rail-131072.json\` with 128 and 512 hosts."
  echo
  echo "| topology | size | replay (us) | estimate (us) | error | replay wall s | estimate wall s |"
  echo "|---|---|---:|---:|---:|---:|---:|"
  for file in "${topologies[@]}"; do
    name=$(basename "$file" .json)
    for size in 25MiB 125MiB 1GiB; do
      args=(collective --topology "$file" --algo nvls_tree --protocol simple --sizes "$size")
      read -r replay_ps replay_wall < <(run "$collsim" "${args[@]}" --exact)
      read -r est_ps est_wall < <(COLLSIM_TREE_REPLAY_BUDGET=1 run "$collsim" "${args[@]}")
      awk -v n="$name" -v s="$size" -v r="$replay_ps" -v e="$est_ps" -v rw="$replay_wall" -v ew="$est_wall" \
        'BEGIN { printf "| %s | %s | %.2f | %.2f | %+.2f %% | %s | %s |\n", n, s, r / 1e6, e / 1e6, (e / r - 1) * 100, rw, ew }'
    done
  done
} >"$tmp/table"
mv "$tmp/table" "$out"
echo "wrote $out"
