# collsim ddp --sharding: one ZeRO / FSDP step from the CLI, output formats, determinism,
# the ZeRO paper's volumes on a real workload, and bad flags.
source "$(dirname "$0")/lib.bash"
TOPO="$SRC/topologies/4x-dgx-h100-rail-8x400g-ib.json"

run() { "$COLLSIM" ddp --topology "$TOPO" --workload bert-large "$@"; }
for s in zero2 zero3 fsdp_shard_grad_op fsdp_hybrid_shard; do
  run --sharding "$s" --format json >"$TMP/$s.json" 2>/dev/null || fail "ddp --sharding $s failed"
done
run --sharding zero3 --format json >"$TMP/again.json" 2>/dev/null
cmp -s "$TMP/zero3.json" "$TMP/again.json" || fail "sharded output differs between two identical runs"

python3 - "$TMP" <<'PY' || fail "sharded JSON check failed"
import json, sys
d = sys.argv[1]
r = {s: json.load(open(f"{d}/{s}.json")) for s in ["zero2", "zero3", "fsdp_shard_grad_op", "fsdp_hybrid_shard"]}
vol = {s: x["gathered_elements"] + x["reduced_elements"] for s, x in r.items()}
# BERT-large: Ψ = 335,141,888 elements (padded to 32 ranks); the FSDP root unit (embeddings,
# pooler: 32,832,512) is kept from forward to backward, so ZeRO-3 moves 3Ψ - root and
# ZeRO-2 2Ψ: (3 x 335141888 - 32832512) / (2 x 335141888) = 1.451.
assert r["zero2"]["reduced_elements"] == 335141888, r["zero2"]["reduced_elements"]
assert abs(vol["zero3"] / vol["zero2"] - (3 * 335141888 - 32832512) / (2 * 335141888)) < 1e-9, vol
# SHARD_GRAD_OP gathers only before forward.
assert all(u["backward_gather_end_ps"] == 0 for u in r["fsdp_shard_grad_op"]["units"])
assert r["fsdp_shard_grad_op"]["gathered_elements"] == 335141888
# HYBRID_SHARD: shard groups of the topology's 8 GPUs per node.
assert r["fsdp_hybrid_shard"]["ranks_per_node"] == 8
for x in r.values():
    assert x["ranks"] == 32 and x["iteration_ms"] > 0
    assert 0 <= x["exposed_communication_ms"] <= x["communication_busy_ms"] + 1e-9
PY

run --sharding fsdp_full_shard --backward-prefetch post --all-gather-limit 0 >"$TMP/t.txt" 2>/dev/null || fail "table failed"
grep -q "exposed communication" "$TMP/t.txt" || fail "table lacks the exposed communication line"
run --sharding zero1 --format csv --reduce-bucket-mb 100 >"$TMP/c.csv" 2>/dev/null || fail "csv failed"
head -1 "$TMP/c.csv" | grep -q "^unit,elements,fwd_gather_start_ms" || fail "csv header"
# 335,141,888 gradient elements of 2 B in 100 MiB buckets: at least 7 buckets.
[[ $(grep -c "^bucket" "$TMP/c.csv") -ge 7 ]] || fail "zero1 with 100 MiB buckets has fewer than 7 buckets"

# ZeRO-Offload: BERT-large's optimizer (40 B a parameter) on the CPU for each rank's 1/32
# shard, at its share of a DGX H100 socket (307.2 GB/s over 4 GPUs); the gradient shards
# down and the updated shard up over PCIe, on the communication stream.
run --sharding zero2 --offload-optimizer --format json >"$TMP/off.json" 2>/dev/null || fail "ddp --sharding zero2 --offload-optimizer failed"
python3 - "$TMP/zero2.json" "$TMP/off.json" <<'PY' || fail "offload JSON check failed: $(head -c 1500 "$TMP/off.json")"
import json, sys
gpu, off = (json.load(open(p)) for p in sys.argv[1:3])
shard = -(-335141888 // 32)
assert abs(off["optimizer_ms"] - 40 * shard / (307.2e9 / 4) * 1e3) < 1e-6, off["optimizer_ms"]
assert off["offload_copies_ms"] > 0 and "offload_copies_ms" not in gpu
assert off["iteration_ms"] > gpu["iteration_ms"] - gpu["optimizer_ms"] + off["optimizer_ms"], (off["iteration_ms"], gpu["iteration_ms"])
PY
cat >"$TMP/nodram.json" <<'JSON'
{"name": "no-dram", "nodes": [
  {"id": "h", "kind": "host"},
  {"id": "g0", "kind": "gpu", "model": "H100", "host": "h"}, {"id": "g1", "kind": "gpu", "model": "H100", "host": "h"},
  {"id": "c", "kind": "cpu", "host": "h"}],
 "links": [{"endpoints": ["g0", "c"], "kind": "pcie", "bandwidth": "63GB/s", "latency": "250ns"},
           {"endpoints": ["g1", "c"], "kind": "pcie", "bandwidth": "63GB/s", "latency": "250ns"}]}
JSON
expect_error 2 "--offload-optimizer" "memory_bandwidth" "nodram.json" -- ddp --topology "$TMP/nodram.json" --workload bert-large --sharding zero2 --offload-optimizer
expect_error 2 "--offload-optimizer" "zero1, zero2 or zero3" -- ddp --workload bert-large --sharding fsdp_full_shard --offload-optimizer
expect_error 2 "--offload-optimizer" "zero1, zero2 or zero3" -- ddp --workload bert-large --offload-optimizer
expect_error 2 "--sharding" "fsdp_full_shard" -- ddp --workload bert-large --sharding zero4
expect_error 2 "--backward-prefetch" -- ddp --workload bert-large --sharding zero3 --backward-prefetch early
expect_error 2 "--ranks-per-node" -- ddp --topology "$TOPO" --workload bert-large --sharding fsdp_hybrid_shard --ranks-per-node 3
expect_error 2 "--ranks-per-node" -- ddp --workload bert-large --sharding zero3 --ranks-per-node 4
expect_error 2 "--hook" -- ddp --workload bert-large --sharding zero2 --hook fp16
expect_error 2 "--trace" -- ddp --workload bert-large --sharding zero3 --trace "$TMP/no/such/dir/x.json"
expect_error 2 "--all-gather-limit" -- ddp --workload bert-large --sharding zero3 --all-gather-limit -1
expect_error 2 "--precision" '"fp8"' "adam_mixed, adam_fp32, sgd_momentum_fp32" -- ddp --workload bert-large --sharding zero3 --precision fp8
# One precision vocabulary: the plan files' names, and the command line's older spellings.
run --sharding zero2 --precision sgd_momentum_fp32 --format json >"$TMP/p1.json" 2>/dev/null || fail "sgd_momentum_fp32 refused"
run --sharding zero2 --precision sgd-fp32 --format json >"$TMP/p2.json" 2>/dev/null || fail "sgd-fp32 refused"
cmp -s "$TMP/p1.json" "$TMP/p2.json" || fail "a precision and its alias give different steps"
expect_error 2 "--reduce-bucket-mb" -- ddp --workload bert-large --sharding zero2 --reduce-bucket-mb 0
expect_error 2 "--accumulate" -- ddp --workload bert-large --sharding zero2 --accumulate 0
echo ok
