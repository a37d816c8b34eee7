# The real test bed, small: 3 namespace hosts at 200 Mbit/s (MTU 9000), ring and PS
# all-reduce of 4 MiB run by collsim-exec, predicted by collsim validate within a loose
# 15 %. Skips (exit 77, reported by ctest as skipped) when not root or tc/netns missing.
source "$(dirname "$0")/lib.bash"
EXEC=$(dirname "$COLLSIM")/collsim-exec
need_testbed "real test-bed run"

# Our own prefix, subnet and state dir, so a running validate_all.sh test bed is untouched.
export COLLSIM_TESTBED_PREFIX=ctst$$ COLLSIM_TESTBED_SUBNET=10.79.$((RANDOM % 200)) COLLSIM_TESTBED_STATE=$TMP/state
TB="$SRC/scripts/testbed.sh"
trap 'bash "$TB" down >/dev/null 2>&1; rm -rf "$TMP"' EXIT
bash "$TB" up 3 200mbit 9000 --topology "$TMP/topo.json" >"$TMP/up" 2>&1 || {
  grep -q "refused" "$TMP/up" && skip "$(cat "$TMP/up")"
  fail "testbed up failed: $(cat "$TMP/up")"
}
master=$(bash "$TB" addr 0)
export COLLSIM_EXEC_TOKEN=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')  # the ranks' shared secret
for r in 1 2; do
  bash "$TB" exec $r "$EXEC" --rank $r --world 3 --master "$master:29600" --bind "$(bash "$TB" addr $r)" \
    --algo ring,ps --sizes 4MiB --warmup 1 --iters 3 --timeout 20s 2>"$TMP/err$r" &
done
bash "$TB" exec 0 "$EXEC" --rank 0 --world 3 --master "$master:29600" --algo ring,ps --sizes 4MiB --warmup 1 \
  --iters 3 --timeout 20s --topology topo.json >"$TMP/m.jsonl" 2>"$TMP/err0" || fail "rank 0: $(cat "$TMP/err0")"
wait || fail "a rank failed: $(cat "$TMP"/err*)"
cat "$TMP/m.jsonl"
"$COLLSIM" validate --measured "$TMP/m.jsonl" --tolerance 15% || fail "test bed beyond 15 % (CPU contention?)"
echo "ok"
