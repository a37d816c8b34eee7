# collsim llm: a Llama 2 70B step under TP x PP x DP on a rail-optimised H100 cluster grown to
# the layout's GPUs; the same bytes twice; Mixtral 8x7B with expert parallelism; bad layouts,
# models and options exit 2 naming the field; NCCL's knobs and a calibration reach its collectives.
source "$(dirname "$0")/lib.bash"
args=(llm --model llama2-70b --topology 16x-dgx-h100-rail-8x400g-ib --tp 8 --pp 4 --dp 4 --global-batch 64
      --schedule interleaved --virtual-stages 5 --recompute selective --sequence-parallel --distributed-optimizer)
"$COLLSIM" "${args[@]}" --format json >"$TMP/a.json" || fail "llm failed"
"$COLLSIM" "${args[@]}" --format json >"$TMP/b.json" || fail "llm failed twice"
cmp -s "$TMP/a.json" "$TMP/b.json" || fail "llm output differs between two runs"
python3 - "$TMP/a.json" <<'PY' || fail "llm json: $(head -c 2000 "$TMP/a.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["layout"] == {"tp": 8, "pp": 4, "dp": 4, "virtual_stages": 5, "ep": 1, "order": "tp-dp-pp", "gpus": 128}, d["layout"]
assert d["ep_all_to_alls_per_layer"] == 0 and all(s["ep_ps"] == 0 and s["tp_ps"] > 0 for s in d["stages"])
assert d["device"] == "H100" and d["micro_batches"] == 16, d
# 80 layers over 4 stages x 5 chunks; SP turns each layer's 4 TP all-reduces into 8 collectives.
assert d["tp_collectives_per_layer"] == 8
assert not d["tp_crosses_hosts"] and d["fits"]
# 16 micro-batches, 4 stages, 5 chunks: bubble near (p-1)/(v m + p - 1) = 3/83.
assert 0.02 < d["bubble_fraction"] < 0.08, d["bubble_fraction"]
assert 0.2 < d["mfu"] < 0.8, d["mfu"]
assert len(d["stages"]) == 4 and all(s["memory_bytes"] < d["hbm_capacity_bytes"] for s in d["stages"])
# Model FLOPs: 3 x forward of 64 x 4096 tokens through 80 layers and the LM head.
h, f, s, V, kv = 8192, 28672, 4096, 32000, 1024
layer = 2 * (2 * h * h + 2 * h * kv + 3 * h * f) + 4 * s * h
assert abs(d["model_flops"] / (3 * 64 * s * (80 * layer + 2 * h * V)) - 1) < 1e-9, d["model_flops"]
PY
# --trace: a Perfetto-importable trace, one process per stage with its three streams.
"$COLLSIM" "${args[@]}" --overlap-grad-reduce --trace "$TMP/t.json" >/dev/null || fail "llm --trace failed"
"$COLLSIM" check-trace "$TMP/t.json" >/dev/null || fail "llm trace breaks Perfetto's rules"
python3 - "$TMP/t.json" <<'PY' || fail "llm trace: $(head -c 2000 "$TMP/t.json")"
import collections, json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
procs = [e for e in ev if e["name"] == "process_name"]
tracks = [e["args"]["name"] for e in ev if e["name"] == "thread_name"]
assert len(procs) == 4 and tracks == ["compute stream", "pipeline sends", "data-parallel stream"] * 4, tracks
cats = collections.Counter(e.get("cat") for e in ev if e["ph"] == "X")
# 4 stages x 5 chunks x 16 micro-batches each way; every operation but the model's ends sends.
assert cats["forward"] == cats["backward"] == 320 and cats["p2p"] == 2 * 19 * 16, cats
# Per stage a reduce-scatter and a parameter all-gather; the optimizer on every stage.
assert cats["dp"] == 8 and cats["optimizer"] == 4, cats
PY
expect_error 2 "--trace" -- llm --search --model llama2-7b --topology dgx-h100 --gpus 8 --global-batch 8 --trace "$TMP/x.json"
"$COLLSIM" "${args[@]}" >"$TMP/table" || fail "llm table failed"
grep -q "^MFU" "$TMP/table" || fail "no MFU line: $(cat "$TMP/table")"
# TP 16 on 8-GPU hosts leaves the NVLink domain: said, not refused.
"$COLLSIM" llm --model llama2-7b --tp 16 --dp 1 --global-batch 4 --topology 4x-dgx-h100-rail-8x400g-ib \
  | grep -q "TP groups span hosts" || fail "no warning for TP across hosts"

# --search: every layout of 16 GPUs; TP within a host; fitting rows by step time; same bytes twice.
search=(llm --search --model llama2-7b --topology 4x-dgx-h100-rail-8x400g-ib --gpus 16 --global-batch 64 --top 1000
        --price-per-gpu-hour 2 --format json)
"$COLLSIM" "${search[@]}" >"$TMP/s1.json" || fail "llm --search failed"
"$COLLSIM" "${search[@]}" >"$TMP/s2.json" || fail "llm --search failed twice"
cmp -s "$TMP/s1.json" "$TMP/s2.json" || fail "llm --search output differs between two runs"
python3 - "$TMP/s1.json" <<'PY' || fail "llm --search json: $(head -c 2000 "$TMP/s1.json")"
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["layouts"]
assert d["evaluated"] == len(rows) > 400, d["evaluated"]
assert all(r["tp"] <= 8 and r["tp"] * r["pp"] * r["dp"] == 16 for r in rows)
# Interleaving only on more than 2 stages, as Megatron-LM allows it.
assert all(r["virtual_stages"] == 1 or r["pp"] > 2 for r in rows)
assert any(r["virtual_stages"] > 1 for r in rows)
fit = [r for r in rows if r["fits"]]
assert rows[:len(fit)] == fit and all(a["step_s"] <= b["step_s"] for a, b in zip(fit, fit[1:]))
assert all(r["recompute"] != "selective" for r in rows)  # flash attention: selective equals none
# 2 per GPU-hour x 16 GPUs x the step.
assert all(abs(r["cost_per_step"] - 2 * 16 * r["step_s"] / 3600) < 1e-9 for r in rows)
PY
# Mixtral 8x7B with its experts over 8 replicas: the all-to-alls, expert weights split by 8.
moe=(llm --model mixtral-8x7b --topology 4x-dgx-h100-rail-8x400g-ib --tp 2 --dp 16 --ep 8 --sequence-parallel
     --global-batch 64 --distributed-optimizer --format json)
"$COLLSIM" "${moe[@]}" >"$TMP/moe.json" || fail "llm (MoE) failed"
python3 - "$TMP/moe.json" <<'PY' || fail "llm MoE json: $(head -c 2000 "$TMP/moe.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["layout"]["ep"] == 8 and d["ep_all_to_alls_per_layer"] == 4, d
st = d["stages"][0]
assert st["ep_ps"] > 0 and d["fits"], st
# Per GPU: dense weights / tp, experts / (tp x ep); 16-bit: Mixtral's 32 layers of 8 experts of
# 3 x 4096 x 14336 over 2 x 8, the rest (1.60B) over 2.
experts = 32 * 8 * 3 * 4096 * 14336
dense = 46_702_792_704 - experts
assert st["weights_bytes"] == 2 * (dense // 2 + experts // 16), (st["weights_bytes"], 2 * (dense // 2 + experts // 16))
PY
"$COLLSIM" llm --search --model mixtral-8x7b --topology 4x-dgx-h100-rail-8x400g-ib --gpus 32 --global-batch 64 \
  --top 1000 --format json >"$TMP/ms.json" || fail "llm --search (MoE) failed"
python3 - "$TMP/ms.json" <<'PY' || fail "llm --search MoE json: $(head -c 2000 "$TMP/ms.json")"
import json, sys
d = json.load(open(sys.argv[1]))
eps = {r["ep"] for r in d["layouts"]}
assert eps == {1, 2, 4, 8}, eps  # every divisor of the 8 experts that divides some dp
assert all(r["dp"] % r["ep"] == 0 and (r["tp"] == 1 or r["sequence_parallel"]) for r in d["layouts"])
PY
expect_error 2 "ep" "divisor of dp" -- llm --model mixtral-8x7b --topology dgx-h100 --dp 8 --ep 3 --global-batch 8
expect_error 2 "ep" "dense model" -- llm --model llama2-7b --topology dgx-h100 --dp 8 --ep 2 --global-batch 8
# Errors name what is wrong: a model whose state no layout of 8 H100s holds (not the batch),
# and a GPU count that leaves a host partly filled (not the topology file's /ranks).
expect_error 2 "--gpus" "got 8" "model state" "--offload optimizer" -- llm --model llama2-70b --topology dgx-h100 --search --gpus 8 --global-batch 16
expect_error 2 "--dp" "tp x pp x dp = 12" "fills whole hosts" -- llm --model llama2-7b --topology 4x-dgx-h100-rail-8x400g-ib --tp 4 --dp 3 --global-batch 48
expect_error 2 "--gpus" "got 12" "fills whole hosts" -- llm --model llama2-7b --topology 4x-dgx-h100-rail-8x400g-ib --search --gpus 12 --global-batch 48
expect_error 2 "sequence_parallel" "MoE" -- llm --model mixtral-8x7b --topology dgx-h100 --tp 2 --dp 4 --ep 2 --global-batch 8
# --offload optimizer with --search tries every layout with and without ZeRO-Offload.
"$COLLSIM" "${search[@]}" --offload optimizer >"$TMP/so.json" || fail "llm --search --offload failed"
python3 - "$TMP/s1.json" "$TMP/so.json" <<'PY' || fail "llm --search --offload json: $(head -c 2000 "$TMP/so.json")"
import json, sys
plain, both = (json.load(open(p)) for p in sys.argv[1:3])
assert {r["offload_optimizer"] for r in both["layouts"]} == {False, True}
assert all(r["gradient_accumulation_fusion"] and not r["overlap_cpu_optimizer_d2h_h2d"] for r in both["layouts"])
assert not any(r["offload_optimizer"] for r in plain["layouts"])
# Offloading frees the optimizer's HBM: every layout that fit still fits, some that did not now do.
assert both["evaluated"] >= 2 * plain["evaluated"] and both["fitting"] > 2 * plain["fitting"] - 1, (both["fitting"], plain["fitting"])
PY
# One offloaded layout: gradients down, Adam on the CPU at the socket's DRAM share, weights
# up; the report's offload is their sum, the trace shows the three in order on every stage.
off=(llm --model llama2-7b --topology dgx-h100 --dp 8 --global-batch 8 --distributed-optimizer)
"$COLLSIM" "${off[@]}" --format json >"$TMP/gpu.json" || fail "llm without offload failed"
"$COLLSIM" "${off[@]}" --offload optimizer --format json --trace "$TMP/off.trace" >"$TMP/off.json" || fail "llm --offload failed"
python3 - "$TMP/gpu.json" "$TMP/off.json" "$TMP/off.trace" <<'PY' || fail "llm --offload json: $(head -c 2000 "$TMP/off.json")"
import json, sys
gpu, off = (json.load(open(p)) for p in sys.argv[1:3])
assert gpu["offload_s"] == 0 and gpu["optimizer_s"] > 0 and off["optimizer_s"] == 0, (gpu, off)
# Llama 2 7B's optimizer moves 40 B a parameter; a GPU's share of a DGX H100 socket is
# 307.2 / 4 GB/s; its shard is the model over dp 8 (the embedding's rank holds a bit more).
shard = off["offload_cpu_s"] * 307.2e9 / 4 / 40
assert 6.7e9 / 8 < shard < 7.0e9 / 8, shard
assert off["offload_cpu_s"] < off["offload_s"], off
assert abs(off["step_s"] - off["offload_s"] - (gpu["step_s"] - gpu["optimizer_s"])) < 1e-9, (off["step_s"], gpu["step_s"])
names = [e["name"] for e in json.load(open(sys.argv[3]))["traceEvents"] if e.get("cat") == "offload"]
assert names == ["gradients to host (PCIe)", "Adam on the CPU", "weights to GPU (PCIe)"], names
PY
# --overlap-cpu-optimizer-d2h-h2d pipelines the three over the 32 layers: the CPU's Adam (the
# slowest) throughout, the two copies for one layer's share.
"$COLLSIM" "${off[@]}" --offload optimizer --overlap-cpu-optimizer-d2h-h2d --format json >"$TMP/ov.json" || fail "llm overlapped offload failed"
python3 - "$TMP/off.json" "$TMP/ov.json" <<'PY' || fail "llm overlapped offload json: $(head -c 2000 "$TMP/ov.json")"
import json, sys
off, ov = (json.load(open(p)) for p in sys.argv[1:3])
assert ov["overlap_cpu_optimizer_d2h_h2d"] and not off["overlap_cpu_optimizer_d2h_h2d"]
copies = off["offload_s"] - off["offload_cpu_s"]
assert abs(ov["offload_s"] - (off["offload_cpu_s"] + copies / 32)) < 1e-9, (ov["offload_s"], off["offload_s"])
PY
expect_error 2 "--overlap-cpu-optimizer-d2h-h2d" "--offload optimizer" -- "${off[@]}" --overlap-cpu-optimizer-d2h-h2d
expect_error 2 "--overlap-cpu-optimizer-d2h-h2d" "--offload optimizer" -- llm --search --model llama2-7b --topology dgx-h100 --gpus 8 --global-batch 8 --overlap-cpu-optimizer-d2h-h2d
# --no-gradient-accumulation-fusion: each backward adds its bf16 gradients into the fp32 main
# gradients (10 B a parameter at the H100's 3.35 TB/s), once per micro-batch.
"$COLLSIM" "${off[@]}" --no-gradient-accumulation-fusion --format json >"$TMP/nofuse.json" || fail "llm --no-gradient-accumulation-fusion failed"
python3 - "$TMP/gpu.json" "$TMP/nofuse.json" <<'PY' || fail "llm without fusion json: $(head -c 2000 "$TMP/nofuse.json")"
import json, sys
fused, plain = (json.load(open(p)) for p in sys.argv[1:3])
assert fused["gradient_accumulation_fusion"] and not plain["gradient_accumulation_fusion"]
extra = plain["pipeline_s"] - fused["pipeline_s"]
# Llama 2 7B on one GPU of dp 8 holds all 6.74e9 parameters; 1 micro-batch.
assert abs(extra / (10 * 6.74e9 / 3.35e12) - 1) < 0.01, extra
PY
# A host whose DRAM rate the topology does not give cannot run the offloaded Adam.
cat >"$TMP/nodram.json" <<'JSON'
{"name": "no-dram", "nodes": [
  {"id": "h", "kind": "host"},
  {"id": "g0", "kind": "gpu", "model": "H100", "host": "h"}, {"id": "g1", "kind": "gpu", "model": "H100", "host": "h"},
  {"id": "nv", "kind": "nvswitch", "host": "h"}, {"id": "c", "kind": "cpu", "host": "h"}],
 "links": [{"endpoints": ["g0", "nv"], "kind": "nvswitch", "bandwidth": "450GB/s", "latency": "250ns"},
           {"endpoints": ["g1", "nv"], "kind": "nvswitch", "bandwidth": "450GB/s", "latency": "250ns"},
           {"endpoints": ["g0", "c"], "kind": "pcie", "bandwidth": "63GB/s", "latency": "250ns"},
           {"endpoints": ["g1", "c"], "kind": "pcie", "bandwidth": "63GB/s", "latency": "250ns"}]}
JSON
expect_error 2 "--offload" "memory_bandwidth" "nodram.json" -- llm --search --model llama2-7b --topology "$TMP/nodram.json" --gpus 2 --global-batch 2 --offload optimizer
expect_error 2 "offload" "memory_bandwidth" -- llm --model llama2-7b --topology "$TMP/nodram.json" --dp 2 --global-batch 2 --offload optimizer
"$COLLSIM" llm --model llama2-7b --topology "$TMP/nodram.json" --dp 2 --global-batch 2 >/dev/null || fail "llm without offload on a host without a DRAM figure failed"
# The overlap flag reaches the offloaded rows of a search, the fusion flag every row.
"$COLLSIM" "${search[@]}" --offload optimizer --overlap-cpu-optimizer-d2h-h2d --no-gradient-accumulation-fusion >"$TMP/so2.json" ||
  fail "llm --search with the offload overlap and no fusion failed"
python3 - "$TMP/so2.json" <<'PY' || fail "llm --search flags json: $(head -c 2000 "$TMP/so2.json")"
import json, sys
rows = json.load(open(sys.argv[1]))["layouts"]
assert all(r["overlap_cpu_optimizer_d2h_h2d"] == r["offload_optimizer"] and not r["gradient_accumulation_fusion"] for r in rows)
PY
"$COLLSIM" "${search[@]/json/table}" --no-gradient-accumulation-fusion >"$TMP/unfused.txt" || fail "llm --search table without fusion failed"
grep -q "^# without gradient-accumulation fusion" "$TMP/unfused.txt" ||
  fail "llm --search text does not say it runs without gradient-accumulation fusion"
expect_error 2 "--gpus" -- llm --search --model llama2-7b --topology dgx-h100 --global-batch 64
expect_error 2 "--price-per-gpu-hour" -- llm --search --model llama2-7b --topology dgx-h100 --gpus 8 --global-batch 8 --price-per-gpu-hour 0

expect_error 2 "/transformer" -- llm --model resnet50 --topology dgx-h100 --dp 8 --global-batch 8
expect_error 2 "tp" "attention heads" -- llm --model llama2-7b --topology dgx-h100 --tp 3 --dp 1 --global-batch 8
expect_error 2 "global_batch" "multiple of dp x micro_batch" -- llm --model llama2-7b --topology dgx-h100 --dp 8 --global-batch 12
expect_error 2 "--schedule" "gpipe" -- llm --model llama2-7b --topology dgx-h100 --dp 8 --global-batch 8 --schedule zigzag
expect_error 2 "--recompute" -- llm --model llama2-7b --topology dgx-h100 --dp 8 --global-batch 8 --recompute some
expect_error 2 "--topology" "at least tp x pp x dp = 16" -- llm --model llama2-7b --topology dgx-h100 --dp 16 --global-batch 16
expect_error 2 "virtual_stages" -- llm --model llama2-7b --topology dgx-h100 --pp 2 --dp 4 --virtual-stages 2 --global-batch 8
# Megatron-LM refuses the interleaved schedule on 2 stages.
expect_error 2 "pp" "greater than 2" -- llm --model llama2-7b --topology dgx-h100 --pp 2 --dp 4 --schedule interleaved \
  --virtual-stages 2 --global-batch 8
printf '{"name": "x", "transformer": {"layers": 2, "hidden": 64, "heads": 4, "vocab": 10, "sequence": 8, "depth": 3}}' >"$TMP/m.json"
expect_error 2 "$TMP/m.json" "/transformer/depth" -- llm --model "$TMP/m.json" --topology dgx-h100 --dp 8 --global-batch 8
printf '{"name": "x", "compute": {"precision": "fp16"}, "transformer": {"layers": 2, "hidden": 64, "heads": 4, "vocab": 10, "sequence": 8}}' >"$TMP/v.json"
expect_error 2 "/compute/efficiency" "V100" -- llm --model "$TMP/v.json" --topology dgx1-v100 --dp 8 --global-batch 8
# NCCL's knobs and a calibration reach the step's collectives: IB at half its bandwidth
# slows the DP all-reduce across the 4 hosts; a bad knob or file exits 2 naming it.
small=(llm --model llama2-7b --topology 4x-dgx-h100-rail-8x400g-ib --tp 8 --dp 4 --global-batch 32 --format json)
echo '{"links": {"ib": {"efficiency": 0.5}}}' >"$TMP/half.json"
"$COLLSIM" "${small[@]}" >"$TMP/k0.json" || fail "llm (small) failed"
"$COLLSIM" "${small[@]}" --calibration "$TMP/half.json" >"$TMP/k1.json" || fail "llm --calibration failed"
"$COLLSIM" "${small[@]}" --nccl-env "NCCL_ALGO=Ring NCCL_PROTO=Simple" >"$TMP/k2.json" || fail "llm --nccl-env failed"
python3 - "$TMP/k0.json" "$TMP/k1.json" "$TMP/k2.json" <<'PY' || fail "llm knobs/calibration: $(cat "$TMP/k1.json" | head -c 500)"
import json, sys
base, half, ring = (json.load(open(p)) for p in sys.argv[1:])
assert half["step_s"] > base["step_s"] * 1.05, (base["step_s"], half["step_s"])
assert ring["step_s"] != base["step_s"], ring["step_s"]
PY
expect_error 2 "--nccl-env" "NCCL_ALGO" -- "${small[@]}" --nccl-env "NCCL_ALGO=Bogus"
expect_error 2 "$TMP/nope.json" -- "${small[@]}" --calibration "$TMP/nope.json"
echo '{"links": {"ib": {"efficiency": 0}}}' >"$TMP/zero.json"
expect_error 2 "zero.json" "/links/ib/efficiency" -- "${small[@]}" --calibration "$TMP/zero.json"
echo ok
