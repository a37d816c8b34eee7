# Bad plan input: exit 2 with the file, the JSON pointer, the value and the expectation.
source "$(dirname "$0")/lib.bash"
write_plan() {  # write_plan FILE STRATEGY_JSON [WORLD_SIZES [CANDIDATE_EXTRA]]
  star_plan "$1" "${3:-[8, 16]}" 256 "$2" "${4:-}"
}
write_plan "$TMP/kind.json" '{"name": "z", "kind": "zero4"}'
expect_error 2 "$TMP/kind.json" "/strategies/0/kind" '"zero4"' "one of: ddp, zero, fsdp" -- plan "$TMP/kind.json"
write_plan "$TMP/ws.json" '{"name": "d", "kind": "ddp"}' '[8, 12]'
# 12 GPUs is not a whole number of 8-GPU DGX hosts.
expect_error 2 "/candidates/0/world_sizes/1" "12" "a multiple of the 8 ranks" -- plan "$TMP/ws.json"
write_plan "$TMP/stage.json" '{"name": "z", "kind": "zero", "stages": [4]}'
expect_error 2 "/strategies/0/stages" "integers from 1 to 3" -- plan "$TMP/stage.json"
write_plan "$TMP/off.json" '{"name": "z", "kind": "zero", "offload_optimizer": [1]}'
expect_error 2 "/strategies/0/offload_optimizer" "a non-empty array of booleans" -- plan "$TMP/off.json"
# The valid form lists each stage without and with ZeRO-Offload; offloaded, the optimizer
# state leaves the GPU (less memory) and the CPU's step makes it slower.
write_plan "$TMP/off.json" '{"name": "z", "kind": "zero", "stages": [2], "offload_optimizer": [false, true]}' '[8]'
"$COLLSIM" plan "$TMP/off.json" --format json >"$TMP/off.out" || fail "plan with offload_optimizer failed"
python3 - "$TMP/off.out" <<'PY' || fail "plan offload rows: $(head -c 1500 "$TMP/off.out")"
import json, sys
rows = {r["strategy"]: r for r in json.load(open(sys.argv[1]))["rows"]}
assert set(rows) == {"zero2 k1", "zero2 offload k1"}, set(rows)
on, off = rows["zero2 k1"], rows["zero2 offload k1"]
assert off["memory_gib"] < on["memory_gib"] and off["step_ms"] > on["step_ms"], (on, off)
PY
write_plan "$TMP/bp.json" '{"name": "f", "kind": "fsdp", "backward_prefetch": "early"}'
expect_error 2 "/strategies/0/backward_prefetch" '"early"' "pre, post, none" -- plan "$TMP/bp.json"
write_plan "$TMP/fabric.json" '{"name": "d", "kind": "ddp"}' '[8]' ', "algorithm": "bogus"'
expect_error 2 "/candidates/0/algorithm" '"bogus"' -- plan "$TMP/fabric.json"
# An algorithm that cannot run on a candidate's ranks (NVLSTree on one host; ^Ring leaves
# PAT, which needs one GPU per host, for ZeRO's reduce-scatter) names the candidate's key,
# not an internal error.
nvls_plan() {  # nvls_plan FILE CANDIDATE_KEYS STRATEGY
  cat >"$1" <<EOF
{"name": "one-host", "currency": "USD",
 "candidates": [{"name": "h100", "topology": {"generator": {"kind": "cluster", "server": {"kind": "dgx_h100"},
   "fabric": {"kind": "rail_optimized", "link_kind": "ib", "nic_bandwidth": "400Gbps", "nics_per_leaf": 32,
   "spines": 4, "oversubscription": 1}}}, "world_sizes": [8], "price": {"per_gpu_hour": 2.5}, $2}],
 "workloads": [{"name": "bert-base", "file": "bert-base", "global_batch": 256, "strategies": ["s"]}],
 "strategies": [$3]}
EOF
}
nvls_plan "$TMP/nvls.json" '"algorithm": "nvls_tree"' '{"name": "s", "kind": "ddp"}'
expect_error 2 "$TMP/nvls.json" "/candidates/0/algorithm" '"nvls_tree"' "can run on" "several hosts" -- plan "$TMP/nvls.json"
nvls_plan "$TMP/notring.json" '"nccl_env": "NCCL_ALGO=^Ring"' '{"name": "s", "kind": "zero", "stages": [1]}'
expect_error 2 "$TMP/notring.json" "/candidates/0/algorithm" "reducescatter" -- plan "$TMP/notring.json"
echo '{"name": "t", ' >"$TMP/broken.json"
expect_error 2 "$TMP/broken.json" -- plan "$TMP/broken.json"
expect_error 2 "missing.json" -- plan "$TMP/missing.json"
write_plan "$TMP/ok.json" '{"name": "d", "kind": "ddp"}'
expect_error 2 "--format" -- plan "$TMP/ok.json" --format xml
expect_error 2 "--jobs" -- plan "$TMP/ok.json" --jobs -1
# 2^34 samples over 8 GPUs is a micro-batch of 2^31, which wrapped an int (internal error):
# the range is 1..2^30 samples per optimizer step.
write_plan "$TMP/batch.json" '{"name": "d", "kind": "ddp"}'
sed -i 's/"global_batch": 256/"global_batch": 17179869184/' "$TMP/batch.json"
expect_error 2 "$TMP/batch.json" "/workloads/0/global_batch" "17179869184" "from 1 to 1073741824" -- plan "$TMP/batch.json"
