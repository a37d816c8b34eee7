# Every shipped topology x {ring, hier_ring, tree, auto}, all-reduce 1 GiB on the default
# path, completes with a prediction within a generous 120 s each (the times are measured by
# scripts/bench_shipped.sh into results/bench/shipped.md; this test catches failures, not
# slowness). On the 16,384- and 131,072-GPU fabrics the tree (and auto, where NCCL picks
# it) is timed from its steady state, and says so on stderr; its full replay (--exact) on
# 131,072 GPUs is refused up front with the figure (the replay's work, transfers x ranks,
# past COLLSIM_MAX_REPLAY_WORK), which is checked.
source "$(dirname "$0")/lib.bash"
ran=0
for file in "$SRC"/topologies/*.json; do
  name=$(basename "$file" .json)
  for algo in ring hier_ring tree auto; do
    rc=0
    timeout 120 "$COLLSIM" collective --topology "$file" --algo "$algo" --sizes 1GiB --format csv >"$TMP/out" 2>"$TMP/err" || rc=$?
    ((rc == 0)) || fail "$name $algo exited $rc (124: over 120 s): $(cat "$TMP/err")"
    us=$(tail -1 "$TMP/out" | cut -d, -f8)
    awk -v t="$us" 'BEGIN { exit !(t > 0) }' || fail "$name $algo: no positive time in $(tail -1 "$TMP/out")"
    echo "ok $name $algo: $us us"
    ran=$((ran + 1))
    case "$name/$algo" in
      h100-fat-tree-16384/tree | h100-rail-131072/tree)
        grep -q "timed from the pipeline's steady state, not replayed" "$TMP/err" || fail "$name $algo: no word that the tree was estimated: $(cat "$TMP/err")" ;;
    esac
  done
done
expect_error 2 "tree allreduce on 131072 ranks: a full replay of 134216704 transfers" "COLLSIM_MAX_REPLAY_WORK" -- collective --topology "$SRC/topologies/h100-rail-131072.json" --algo tree --exact --sizes 1GiB
echo "ok h100-rail-131072 tree --exact: refused up front: $(head -1 "$TMP/err")"
((ran >= 64)) || fail "only $ran cells ran: are the shipped topologies missing?"
exit 0
