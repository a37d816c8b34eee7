#!/usr/bin/env bash
# Times `collsim topo validate` (generate, check every rule, route rank 0 to every rank and
# back) on star generators of 20,000, 100,000 and 1,000,000 hosts, and prints a Markdown
# table of wall time and peak memory (GNU time). Figures go to results/bench/topology.md.
# Usage: scripts/bench_topology.sh [COLLSIM]   (default: build/collsim)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
collsim=${1:-$root/build/collsim}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "| star hosts | directed links | wall (s) | peak RSS (MiB) |"
echo "|---|---|---|---|"
for hosts in 20000 100000 1000000; do
  printf '{"name": "star-%s", "generator": {"kind": "star", "hosts": %s, "bandwidth": "100Gbps", "latency": "1us"}}\n' \
    "$hosts" "$hosts" >"$tmp/star.json"
  /usr/bin/time -f "%e %M" -o "$tmp/time" "$collsim" topo validate "$tmp/star.json" >"$tmp/out"
  grep -q "valid: $hosts ranks" "$tmp/out" || { echo "unexpected output: $(cat "$tmp/out")" >&2; exit 1; }
  read -r wall rss_kib <"$tmp/time"
  awk -v h="$hosts" -v w="$wall" -v r="$rss_kib" 'BEGIN { printf "| %s | %d | %s | %.0f |\n", h, 2 * h, w, r / 1024 }'
done
