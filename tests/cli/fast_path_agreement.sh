# The fast path (default) and the full flow-level replay (--exact) agree within 0.1 % on
# 1024 and 4096 GPUs: the flat ring on a star, and the hierarchical ring on an InfiniBand
# fat tree and on a rail-optimised cluster (max-plus recurrence). On an oversubscribed RoCE
# fat tree ECMP collisions make the fast path replay the ring's phase; its state recurs
# after a transient and the repeats are skipped: still the full replay's picosecond.
source "$(dirname "$0")/lib.bash"
cluster() {  # cluster HOSTS FABRIC SPINES [LINK_KIND OVERSUBSCRIPTION] -> a DGX H100 cluster topology file
  local f="$TMP/$2-$1-${4:-ib}-${5:-1}.json"
  printf '{"generator": {"kind": "cluster", "hosts": %d, "server": {"kind": "dgx_h100"}, "fabric": {"kind": "%s", "link_kind": "%s", "nic_bandwidth": "400Gbps", "nics_per_leaf": 32, "spines": %d, "oversubscription": %d}}}\n' "$1" "$2" "${4:-ib}" "$3" "${5:-1}" >"$f"
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

# The replayed, cycle-skipping phase: identical picoseconds, and the skip did happen.
roce=$(cluster 32 fat_tree 2 roce 4)
"$COLLSIM" -v collective --topology "$roce" --algo ring --sizes 64MiB --format json >"$TMP/fast.json" 2>"$TMP/fast.log" ||
  fail "fast ring on the RoCE fat tree: $(cat "$TMP/fast.log")"
grep -q 'repeats every .* skipped [0-9]* steps' "$TMP/fast.log" || fail "no cycle skipped: $(grep debug "$TMP/fast.log")"
"$COLLSIM" collective --topology "$roce" --algo ring --sizes 64MiB --format json --exact >"$TMP/exact.json" ||
  fail "exact ring on the RoCE fat tree"
fast_ps=$(grep -o '"time_ps": *[0-9]*' "$TMP/fast.json") exact_ps=$(grep -o '"time_ps": *[0-9]*' "$TMP/exact.json")
[[ -n $fast_ps && $fast_ps == "$exact_ps" ]] || fail "RoCE fat tree ring: fast path $fast_ps vs full replay $exact_ps"
echo "ok RoCE fat tree ring 64MiB, cycle skipped: $fast_ps"
