# collsim ddp across a change of membership (issue 20, elastic): 32 -> 24 ranks between
# steps rebuilds the ring (and tree) over 24 ranks, proved by the symbolic executor; the step after
# the change is the step of a 24-rank job; the rebuild is its own line; ZeRO-2 and FSDP
# runs re-shard their sharded state; every elastic flag's bad input exits 2 naming it.
source "$(dirname "$0")/lib.bash"
base=(ddp --topology "$SRC/topologies/ddp-4x8-example.json" --workload resnet50)
"$COLLSIM" "${base[@]}" --steps 10 --membership 5:24 >"$TMP/e.txt" 2>"$TMP/err" || fail "ddp --membership: $(cat "$TMP/err")"
# 4 x 8 H100 on NVSwitch: NCCL's model picks NVLSTree for ResNet-50's buckets, rebuilt over 24 ranks
# (4 hosts x 6 GPUs).
grep -q "^steps 5-9: 24 ranks, .*proved: .*nvls_tree on 24 ranks (800 transfers)" "$TMP/e.txt" ||
  fail "no proved 24-rank nvls_tree: $(tail -5 "$TMP/e.txt")"
grep -q "^rebuild before step 5 (32 -> 24 ranks): .* = rendezvous 30000.000 ms" "$TMP/e.txt" ||
  fail "no rebuild line: $(tail -5 "$TMP/e.txt")"
"$COLLSIM" "${base[@]}" --steps 10 --membership 5:24 --comm-init 1.5s --format json >"$TMP/e.json" 2>&1 ||
  fail "ddp --membership --format json"
"$COLLSIM" "${base[@]}" --ranks 24 --format json >"$TMP/r24.json" 2>&1 || fail "ddp --ranks 24"
"$COLLSIM" "${base[@]}" --format json >"$TMP/r32.json" 2>&1 || fail "ddp (32 ranks)"
python3 - "$TMP/e.json" "$TMP/r24.json" "$TMP/r32.json" <<'PY' || fail "the elastic run does not add up: $(head -c 800 "$TMP/e.json")"
import json, sys
e, r24, r32 = (json.load(open(p)) for p in sys.argv[1:])
el = e["elastic"]
before, after = el["phases"]
assert (before["first_step"], before["last_step"], before["ranks"]) == (0, 4, 32), before
assert (after["first_step"], after["last_step"], after["ranks"]) == (5, 9, 24), after
# Each phase's step is the step of a job of that size.
assert before["iteration_ps"] == r32["iteration_ps"], (before, r32["iteration_ps"])
assert after["iteration_ps"] == r24["iteration_ps"], (after, r24["iteration_ps"])
# NCCL's auto picks per bucket; NVLSTree is rebuilt over 24 ranks (4 hosts x 6 GPUs).
nvls = [p for p in after["proved_schedules"] if p["algorithm"] == "nvls_tree"]
assert len(nvls) == 1 and nvls[0]["ranks"] == 24, after
assert all(p["ranks"] == 24 for p in after["proved_schedules"]), after
(rb,) = el["rebuilds"]
assert rb["before_step"] == 5 and rb["from_ranks"] == 32 and rb["to_ranks"] == 24
assert rb["rendezvous_ms"] == 30000.0 and not rb["rendezvous_given"] and rb["comm_init_ms"] == 1500.0
assert rb["state_broadcasts"] == 1 and rb["state_broadcast_ms"] > 0
assert abs(rb["total_ms"] - (30000 + 1500 + rb["state_broadcast_ms"])) < 1e-6
steps_ps = 5 * before["iteration_ps"] + 5 * after["iteration_ps"]
assert el["total_ps"] == steps_ps + rb["total_ps"], (el["total_ps"], steps_ps, rb["total_ps"])
PY
"$COLLSIM" "${base[@]}" --steps 10 --membership 5:24 >"$TMP/e2.txt" 2>&1 && cmp -s "$TMP/e.txt" "$TMP/e2.txt" ||
  fail "the same elastic run gave different bytes"

expect_error 2 "--membership" "STEP:RANKS" -- "${base[@]}" --steps 10 --membership 5
expect_error 2 "--membership" "STEP:RANKS" -- "${base[@]}" --steps 10 --membership 5:many
expect_error 2 "--membership" "from 1 to 9" -- "${base[@]}" --steps 10 --membership 10:24
expect_error 2 "--membership" "from 6 to 9" -- "${base[@]}" --steps 10 --membership 5:24,5:16
expect_error 2 "--membership" "from 1 to 32" -- "${base[@]}" --steps 10 --membership 5:64
expect_error 2 "--membership" "other than 32" -- "${base[@]}" --steps 10 --membership 5:32
expect_error 2 "--membership" "--steps" -- "${base[@]}" --membership 5:24
expect_error 2 "--steps" "2 to 1000000" -- "${base[@]}" --steps 1 --membership 5:24
expect_error 2 "--membership" "--rank-speed or --jitter" -- "${base[@]}" --steps 10 --membership 5:24 --jitter 0.1
# ZeRO / FSDP: the same phases; the rebuild re-shards the sharded state over the new ranks.
for strategy in zero2 fsdp_full_shard; do
  "$COLLSIM" "${base[@]}" --sharding $strategy --steps 10 --membership 5:24 --format json >"$TMP/s.json" 2>&1 ||
    fail "--sharding $strategy --membership: $(cat "$TMP/s.json")"
  "$COLLSIM" "${base[@]}" --sharding $strategy --ranks 24 --format json >"$TMP/s24.json" 2>&1 || fail "--sharding $strategy --ranks 24"
  python3 - "$TMP/s.json" "$TMP/s24.json" "$strategy" <<'PY' || fail "$strategy: the elastic run does not add up: $(head -c 900 "$TMP/s.json")"
import json, sys
e, r24, strategy = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
before, after = e["elastic"]["phases"]
assert after["ranks"] == 24 and after["iteration_ps"] == r24["iteration_ps"], (after, r24["iteration_ps"])
kinds = sorted(p["algorithm"].split(" ")[-1] for p in after["proved_schedules"])
assert "allgather" in kinds and "reducescatter" in kinds and all(p["ranks"] == 24 for p in after["proved_schedules"]), after
(rb,) = e["elastic"]["rebuilds"]
# Adam mixed: ResNet-50's 25.6 M parameters x 12 B of optimizer state sharded under ZeRO-2,
# x (2 + 12) B under FSDP; 24 ranks take a 24th each.
per_param = 12 if strategy == "zero2" else 14
assert rb["reshard_bytes"] % per_param == 0 and 25e6 < rb["reshard_bytes"] / per_param < 26e6, rb
assert rb["reshard_bytes_per_rank"] == -(-rb["reshard_bytes"] // 24), rb
assert rb["reshard_ms"] > 0
assert abs(rb["total_ms"] - (rb["rendezvous_ms"] + rb["state_broadcast_ms"] + rb["reshard_ms"])) < 1e-6, rb
PY
done
expect_error 2 "--membership" "whole nodes of 8 ranks" -- "${base[@]}" --sharding fsdp_hybrid_shard --steps 10 --membership 5:20
expect_error 2 "--rendezvous" "duration" -- "${base[@]}" --steps 10 --membership 5:24 --rendezvous soon
expect_error 2 "--comm-init" "duration" -- "${base[@]}" --steps 10 --membership 5:24 --comm-init 3
exit 0
