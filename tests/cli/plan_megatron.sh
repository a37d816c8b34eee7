# collsim plan with a "megatron" strategy: each row is the best layout its search found
# (TP x PP x DP x EP, micro-batch, interleaving, recompute, SP, ZeRO-1) at that world size,
# beside FSDP rows of the same workload; a shape-only MoE model plans too; same bytes twice;
# bad megatron fields exit 2 naming them.
source "$(dirname "$0")/lib.bash"
cat >"$TMP/p.json" <<JSON
{
  "name": "llm-small",
  "candidates": [
    {"name": "rail", "topology": "$SRC/topologies/4x-dgx-h100-rail-8x400g-ib.json", "world_sizes": [16, 32],
     "algorithm": "auto", "protocol": "auto", "price": {"per_gpu_hour": 2.5}}
  ],
  "workloads": [
    {"file": "llama2-7b", "global_batch": 64, "strategies": ["megatron", "fsdp"]},
    {"file": "mixtral-8x7b", "global_batch": 64, "strategies": ["megatron-moe"]}
  ],
  "strategies": [
    {"name": "megatron", "kind": "megatron", "micro_batch": [1, 2], "recompute": ["none", "full"]},
    {"name": "megatron-moe", "kind": "megatron", "tp": [1, 2], "ep": [4, 8], "virtual_stages": [2]},
    {"name": "fsdp", "kind": "fsdp", "activation_checkpointing": true}
  ]
}
JSON
"$COLLSIM" plan "$TMP/p.json" --format json >"$TMP/a.json" || fail "plan with megatron failed"
"$COLLSIM" plan "$TMP/p.json" --format json >"$TMP/b.json" || fail "plan with megatron failed twice"
cmp -s "$TMP/a.json" "$TMP/b.json" || fail "plan with megatron differs between two runs"
python3 - "$TMP/a.json" <<'PY' || fail "plan megatron json: $(head -c 3000 "$TMP/a.json")"
import json, re, sys
d = json.load(open(sys.argv[1]))
rows = d["rows"]
meg = [r for r in rows if r["strategy"] == "megatron"]
assert len(rows) == 6 and len(meg) == 4, [(r["strategy"], r["gpus"]) for r in rows]
for r in meg:
    m = re.match(r"tp(\d+) pp(\d+) dp(\d+)( v\d+)?( ep(\d+))? mb(\d+) (none|full|selective)", r["layout"])
    assert m, r["layout"]
    tp, pp, dp = int(m[1]), int(m[2]), int(m[3])
    assert tp * pp * dp == r["gpus"] and tp <= 8, r["layout"]
    assert r["layouts_evaluated"] > 10 and 0 < r["mfu"] < 1 and r["tokens_per_s"] > 0, r
    assert int(m[7]) in (1, 2) and m[8] in ("none", "full"), r["layout"]  # the lists given
    # tokens/s = global batch x sequence / step.
    seq = 4096
    assert abs(r["tokens_per_s"] - 64 * seq / (r["step_ps"] / 1e12)) < 1e-6 * r["tokens_per_s"], r
for r in rows:
    if r["workload"] == "mixtral-8x7b":
        ep = int(re.search(r"ep(\d+)", r["layout"])[1])
        assert ep in (4, 8) and re.match(r"tp[12] ", r["layout"]), r["layout"]
fsdp = [r for r in rows if r["strategy"].startswith("fsdp")]
assert all(r["layout"] is None and r["mfu"] is None for r in fsdp), fsdp
# Each megatron row is the fastest fitting layout of its search: not slower than FSDP here,
# where recompute-free layouts fit.
for n in (16, 32):
    m = [r for r in meg if r["workload"] == "llama2-7b" and r["gpus"] == n][0]
    f = [r for r in fsdp if r["gpus"] == n][0]
    assert m["status"] == "ok" and m["step_ps"] < f["step_ps"], (m, f)
PY
"$COLLSIM" plan "$TMP/p.json" >"$TMP/t.txt" || fail "plan table failed"
grep -q "^candidate .* layout .* mfu" "$TMP/t.txt" || fail "no layout/mfu columns: $(head -5 "$TMP/t.txt")"

bad() {  # $1: the strategy object, then the expected words
  local s=$1
  shift
  sed "s|{\"name\": \"megatron\", \"kind\": \"megatron\", \"micro_batch\": \[1, 2\], \"recompute\": \[\"none\", \"full\"\]}|$s|" \
    "$TMP/p.json" >"$TMP/bad.json"
  expect_error 2 "$TMP/bad.json" "$@" -- plan "$TMP/bad.json"
}
bad '{"name": "megatron", "kind": "megatron", "recompute": ["some"]}' "/strategies/0/recompute" "selective"
bad '{"name": "megatron", "kind": "megatron", "tp": [0]}' "/strategies/0/tp" "integers from 1"
bad '{"name": "megatron", "kind": "megatron", "order": "pp-dp-tp"}' "/strategies/0/order" "tp-dp-pp"
bad '{"name": "megatron", "kind": "megatron", "accumulate": [2]}' "/strategies/0/accumulate"
bad '{"name": "megatron", "kind": "megatron", "sequence_parallel": [1]}' "/strategies/0/sequence_parallel" "booleans"
bad '{"name": "megatron", "kind": "megatron", "overlap_cpu_optimizer_d2h_h2d": true}' "/strategies/0/overlap_cpu_optimizer_d2h_h2d" "an offload list with true"
bad '{"name": "megatron", "kind": "megatron", "gradient_accumulation_fusion": "no"}' "/strategies/0/gradient_accumulation_fusion" '"no"'
# llm's flags as plan keys: unfused accumulation makes the same search's best row slower; the
# flags name the rows (strategy column).
cat >"$TMP/f.json" <<JSON
{"name": "fusion", "candidates": [{"name": "rail", "topology": "$SRC/topologies/4x-dgx-h100-rail-8x400g-ib.json", "world_sizes": [16],
  "price": {"per_gpu_hour": 2.5}}],
 "workloads": [{"file": "llama2-7b", "global_batch": 64}],
 "strategies": [{"name": "fused", "kind": "megatron", "micro_batch": [1], "recompute": ["none"], "tp": [1, 2]},
                {"name": "unfused", "kind": "megatron", "micro_batch": [1], "recompute": ["none"], "tp": [1, 2],
                 "gradient_accumulation_fusion": false},
                {"name": "offload", "kind": "megatron", "micro_batch": [1], "recompute": ["none"], "tp": [1, 2],
                 "offload": [true], "overlap_cpu_optimizer_d2h_h2d": true}]}
JSON
"$COLLSIM" plan "$TMP/f.json" --format json >"$TMP/f.out" || fail "plan with the megatron flags failed"
python3 - "$TMP/f.out" <<'PY' || fail "plan megatron flags: $(head -c 2000 "$TMP/f.out")"
import json, sys
rows = {r["strategy"]: r for r in json.load(open(sys.argv[1]))["rows"]}
assert sorted(rows) == ["megatron", "megatron overlap", "megatron unfused"], sorted(rows)
assert rows["megatron unfused"]["step_ps"] > rows["megatron"]["step_ps"], rows
assert rows["megatron overlap"]["layout"].endswith(" offload"), rows["megatron overlap"]
PY
sed 's|"file": "llama2-7b"|"file": "resnet50"|' "$TMP/p.json" >"$TMP/r.json"
expect_error 2 "resnet50" "/transformer" -- plan "$TMP/r.json"
echo ok
