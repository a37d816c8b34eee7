# Every shipped topology x {ring, hier_ring, tree, auto}, all-reduce 1 GiB on the default
# path, completes with a prediction within a generous 120 s each (the times are measured by
# scripts/bench_shipped.sh into results/bench/shipped.md; this test catches failures, not
# slowness). Two kinds of cell are not run to the end here:
#  - tree and auto (NCCL picks tree) on the 16,384-GPU fat tree: a full replay of 16.8 M
#    transfers, about 3 minutes each on a 2-core machine (results/bench/shipped.md), too
#    long for scripts/test.sh; the same tree on 1,024 GPUs is run;
#  - tree and auto on the 131,072-GPU cluster: refused up front (exit 2) with the figure
#    (the tree replay's work, transfers x ranks, past COLLSIM_MAX_REPLAY_WORK),
#    which is checked.
source "$(dirname "$0")/lib.bash"
ran=0
for file in "$SRC"/topologies/*.json; do
  name=$(basename "$file" .json)
  for algo in ring hier_ring tree auto; do
    case "$name/$algo" in
      h100-fat-tree-16384/tree | h100-fat-tree-16384/auto)
        echo "not run here (about 3 minutes): $name $algo"
        continue ;;
      h100-rail-131072/tree | h100-rail-131072/auto)
        expect_error 2 "tree allreduce on 131072 ranks: a full replay of 134216704 transfers" "COLLSIM_MAX_REPLAY_WORK" -- collective --topology "$file" --algo "$algo" --sizes 1GiB
        echo "ok $name $algo: refused up front: $(head -1 "$TMP/err")"
        continue ;;
    esac
    rc=0
    timeout 120 "$COLLSIM" collective --topology "$file" --algo "$algo" --sizes 1GiB --format csv >"$TMP/out" 2>"$TMP/err" || rc=$?
    ((rc == 0)) || fail "$name $algo exited $rc (124: over 120 s): $(cat "$TMP/err")"
    us=$(tail -1 "$TMP/out" | cut -d, -f8)
    awk -v t="$us" 'BEGIN { exit !(t > 0) }' || fail "$name $algo: no positive time in $(tail -1 "$TMP/out")"
    echo "ok $name $algo: $us us"
    ran=$((ran + 1))
  done
done
((ran >= 60)) || fail "only $ran cells ran: are the shipped topologies missing?"
exit 0
