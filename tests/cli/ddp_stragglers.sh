# collsim ddp with slow ranks: one rank at half speed of 32 sets the step (its compute plus
# the communication exposed after it) and every other rank waits; seeded jitter gives the
# same bytes twice; ZeRO/FSDP steps too; every straggler flag's bad input exits 2 naming it.
source "$(dirname "$0")/lib.bash"
base=(ddp --topology "$SRC/topologies/ddp-4x8-example.json" --workload resnet50)
"$COLLSIM" "${base[@]}" --rank-speed 5:0.5 >"$TMP/slow.txt" 2>"$TMP/err" || fail "ddp --rank-speed: $(cat "$TMP/err")"
grep -q "^# slow ranks: step 0 runs at its slowest rank's pace, rank 5 at 0.500x" "$TMP/slow.txt" ||
  fail "no slow-rank section: $(cat "$TMP/slow.txt")"
# --comm-slowdown 0: no compute slowed by collectives, so a rank's kernel time is its
# speed's alone (with NCCL's SM share, how much a rank's compute stretches depends on its
# own overlap).
"$COLLSIM" "${base[@]}" --rank-speed 5:0.5 --comm-slowdown 0 --format json >"$TMP/slow.json" 2>&1 ||
  fail "ddp --rank-speed --format json"
python3 - "$TMP/slow.json" <<'PY' || fail "the slow step does not add up: $(head -c 600 "$TMP/slow.json")"
import json, sys
d = json.load(open(sys.argv[1]))
s = d["stragglers"]
ranks = {r["rank"]: r for r in s["ranks"]}
assert len(ranks) == 32
slow = ranks[5]
# The step = the slow rank's compute + the communication exposed after it.
assert slow["compute_ps"] + slow["waiting_ps"] == d["iteration_ps"], (slow, d["iteration_ps"])
# Waiting = exposed communication + idle until the host launches the next kernel.
assert abs(slow["waiting_ps"] / 1e9 - d["exposed_communication_ms"] - d["host_wait_ms"]) < 1e-9, (slow["waiting_ps"], d)
# Every other rank computes about half as long and waits the rest.
assert abs(ranks[0]["compute_ps"] * 2 - slow["compute_ps"]) <= 10_000, (ranks[0]["compute_ps"], slow["compute_ps"])
assert ranks[0]["waiting_ps"] > slow["waiting_ps"]
assert s["nominal_iteration_ms"] < d["iteration_ms"]
PY
"$COLLSIM" "${base[@]}" --jitter 0.05 --steps 20 --seed 3 >"$TMP/j1.txt" 2>&1 || fail "ddp --jitter"
"$COLLSIM" "${base[@]}" --jitter 0.05 --steps 20 --seed 3 >"$TMP/j2.txt" 2>&1 || fail "ddp --jitter (again)"
cmp -s "$TMP/j1.txt" "$TMP/j2.txt" || fail "the same seed gave different bytes"
"$COLLSIM" "${base[@]}" --jitter 0.05 --steps 20 --seed 4 >"$TMP/j3.txt" 2>&1 || fail "ddp --jitter --seed 4"
! cmp -s "$TMP/j1.txt" "$TMP/j3.txt" || fail "another seed gave the same bytes"
grep -q "^# 20 steps with jitter (log-normal sigma 0.05, seed 3)" "$TMP/j1.txt" || fail "no jitter line: $(tail -3 "$TMP/j1.txt")"

expect_error 2 "--rank-speed" "from 0 to 31" -- "${base[@]}" --rank-speed 32:0.5
expect_error 2 "--rank-speed" "RANK:SPEED" -- "${base[@]}" --rank-speed 3
expect_error 2 "--rank-speed" "RANK:SPEED" -- "${base[@]}" --rank-speed 3:slow
expect_error 2 "--rank-speed" "above 0" -- "${base[@]}" --rank-speed 3:0
expect_error 2 "--jitter" "sigma" -- "${base[@]}" --jitter 5
expect_error 2 "--steps" -- "${base[@]}" --jitter 0.1 --steps 0
expect_error 2 "--steps" "--jitter" -- "${base[@]}" --steps 5
# A sharded step follows the same rule: the slow rank's compute plus the exposed communication
# and the idle time waiting for host launches.
"$COLLSIM" "${base[@]}" --sharding fsdp_full_shard --rank-speed 3:0.5 --format json >"$TMP/fsdp.json" 2>&1 ||
  fail "ddp --sharding fsdp_full_shard --rank-speed: $(cat "$TMP/fsdp.json")"
python3 - "$TMP/fsdp.json" <<'PY' || fail "the slow FSDP step does not add up: $(head -c 600 "$TMP/fsdp.json")"
import json, sys
d = json.load(open(sys.argv[1]))
slow = {r["rank"]: r for r in d["stragglers"]["ranks"]}[3]
assert slow["compute_ps"] + slow["waiting_ps"] == d["iteration_ps"], (slow, d["iteration_ps"])
assert abs(slow["waiting_ps"] / 1e9 - d["exposed_communication_ms"] - d["host_wait_ms"]) < 1e-9, (slow, d)
assert d["stragglers"]["nominal_iteration_ms"] < d["iteration_ms"]
PY
expect_error 2 "--rank-speed" "from 0 to 31" -- "${base[@]}" --sharding zero2 --rank-speed 40:0.5
exit 0
