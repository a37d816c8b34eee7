# DDP's start-up broadcast (--iteration 0, --no-init-sync) and join() with uneven inputs
# (--join RANK:BATCHES --steps K): report lines, JSON figures that add up, bad input.
source "$(dirname "$0")/lib.bash"
base=(ddp --topology "$SRC/topologies/ddp-4x8-example.json" --workload resnet50)

"$COLLSIM" "${base[@]}" --iteration 0 >"$TMP/i0.txt" 2>/dev/null || fail "ddp --iteration 0"
grep -q "^start-up broadcast " "$TMP/i0.txt" || fail "iteration 0 lacks the start-up broadcast: $(cat "$TMP/i0.txt")"
"$COLLSIM" "${base[@]}" --iteration 0 --no-init-sync >"$TMP/nosync.txt" 2>/dev/null || fail "ddp --no-init-sync"
grep -q "^start-up broadcast " "$TMP/nosync.txt" && fail "--no-init-sync still broadcasts"
"$COLLSIM" "${base[@]}" >"$TMP/steady.txt" 2>/dev/null || fail "ddp"
grep -q "^start-up broadcast " "$TMP/steady.txt" && fail "a steady step reports the start-up broadcast"

"$COLLSIM" "${base[@]}" --join 3:90,7:95 --steps 100 --format json >"$TMP/join.json" 2>/dev/null || fail "ddp --join"
python3 - "$TMP/join.json" <<'PY' || fail "join figures: $(head -c 600 "$TMP/join.json")"
import json, sys
d = json.load(open(sys.argv[1]))
b = d["join_batches"]
assert len(b) == 32 and b[3] == 90 and b[7] == 95 and b.count(100) == 30, b
assert d["join_steps"] == 100 and d["join_shadow_rank_steps"] == 15, d
assert abs(d["join_total_ms"] - (100 * d["join_step_ms"] + d["join_final_sync_ms"])) < 1e-6, d
# The join signal costs the step something, never less than nothing.
assert d["join_step_ms"] >= d["iteration_ms"] - 1e-9, (d["join_step_ms"], d["iteration_ms"])
PY

expect_error 2 "--join" "--steps" -- "${base[@]}" --join 3:90
expect_error 2 "--join" "32:5" "a rank from 0 to 31" -- "${base[@]}" --join 32:5 --steps 10
expect_error 2 "--join" "3:11" "from 1 to --steps (10)" -- "${base[@]}" --join 3:11 --steps 10
expect_error 2 "--join" "3:0" -- "${base[@]}" --join 3:0 --steps 10
expect_error 2 "--join" "RANK:BATCHES" -- "${base[@]}" --join 3-4 --steps 10
expect_error 2 "--join" "--jitter" -- "${base[@]}" --join 3:5 --steps 10 --jitter 0.1
exit 0
