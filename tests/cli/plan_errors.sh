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
write_plan "$TMP/bp.json" '{"name": "f", "kind": "fsdp", "backward_prefetch": "early"}'
expect_error 2 "/strategies/0/backward_prefetch" '"early"' "pre, post, none" -- plan "$TMP/bp.json"
write_plan "$TMP/fabric.json" '{"name": "d", "kind": "ddp"}' '[8]' ', "algorithm": "bogus"'
expect_error 2 "/candidates/0/algorithm" '"bogus"' -- plan "$TMP/fabric.json"
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
