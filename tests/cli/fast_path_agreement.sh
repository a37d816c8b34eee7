# The fast path (default) and the full flow-level replay (--exact) agree within 0.1 % on
# 1024 and 4096 GPUs: the flat ring on a star, and the hierarchical ring on a fat tree
# (ECMP collisions: a replayed phase) and on a rail-optimised cluster (max-plus recurrence).
source "$(dirname "$0")/lib.bash"
cluster() {  # cluster HOSTS FABRIC SPINES -> a DGX H100 cluster topology file
  local f="$TMP/$2-$1.json"
  printf '{"generator": {"kind": "cluster", "hosts": %d, "server": {"kind": "dgx_h100"}, "fabric": {"kind": "%s", "link_kind": "ib", "nic_bandwidth": "400Gbps", "nics_per_leaf": 32, "spines": %d, "oversubscription": 1}}}\n' "$1" "$2" "$3" >"$f"
  echo "$f"
}
star() {
  local f="$TMP/star-$1.json"
  printf '{"generator": {"kind": "star", "hosts": %d, "bandwidth": "100Gbps", "latency": "1us"}}\n' "$1" >"$f"
  echo "$f"
}
agree() {  # agree TOPOLOGY ALGO SIZE
  local fast exact
  fast=$("$COLLSIM" collective --topology "$1" --algo "$2" --sizes "$3" --format csv | tail -1 | cut -d, -f8) || fail "fast $*"
  exact=$("$COLLSIM" collective --topology "$1" --algo "$2" --sizes "$3" --format csv --exact | tail -1 | cut -d, -f8) \
    || fail "exact $*"
  awk -v a="$fast" -v b="$exact" 'BEGIN {d = (a - b) / b; if (d < 0) d = -d; exit !(d <= 1e-3)}' \
    || fail "$(basename "$1") $2 $3: fast path ${fast}us vs full replay ${exact}us"
  echo "ok $(basename "$1") $2 $3: fast ${fast}us full ${exact}us"
}
agree "$(star 1024)" ring 64MiB
agree "$(star 4096)" ring 64MiB
agree "$(cluster 128 fat_tree 16)" hier_ring 1GiB
agree "$(cluster 512 fat_tree 64)" hier_ring 1GiB
agree "$(cluster 128 rail_optimized 16)" hier_ring 1GiB
agree "$(cluster 512 rail_optimized 64)" hier_ring 1GiB
