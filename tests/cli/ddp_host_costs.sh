# Host launch costs of a DDP step (--launch-overhead, --collective-launch, --cuda-graph):
# the report's host line, the defaults, what a CUDA graph removes, and bad input.
source "$(dirname "$0")/lib.bash"
TOPO="$SRC/topologies/4x-v100-1x100gbe.json"

run_json() { "$COLLSIM" ddp --topology "$TOPO" --workload resnet50 --format json "$@" 2>/dev/null; }
run_json >"$TMP/default.json" || fail "ddp failed"
run_json --launch-overhead 0us --collective-launch 0us >"$TMP/none.json" || fail "ddp without launch costs failed"
run_json --cuda-graph >"$TMP/graph.json" || fail "ddp --cuda-graph failed"
run_json --launch-overhead 50us >"$TMP/slow.json" || fail "ddp --launch-overhead 50us failed"
"$COLLSIM" ddp --topology "$TOPO" --workload resnet50 >"$TMP/t.txt" 2>/dev/null || fail "ddp table failed"
grep -q "^host launches (CPU) " "$TMP/t.txt" || fail "the table lacks the host launches line"

# ResNet-50's step, in program order: 107 layer forwards and 107 backwards, 161 gradient
# copies, one copy-out per bucket and the optimizer at 4 us each; one collective per
# bucket and two buffer broadcasts (float32 running statistics, int64 batch counters) at
# 5 us (the NCCL model's launch_overhead). With 50 us per kernel the host is
# the bottleneck: the step takes at least its host time. A CUDA graph costs one launch.
python3 - "$TMP" <<'PY' || fail "host launch figures"
import json, sys
d = sys.argv[1]
r = {k: json.load(open(f"{d}/{k}.json")) for k in ("default", "none", "graph", "slow")}
b = len(r["default"]["buckets"])
kernels = 107 + 107 + 161 + b + 1
want = kernels * 4 + (b + 2) * 5
assert abs(r["default"]["host_launch_ms"] * 1000 - want) < 1e-6, (r["default"]["host_launch_ms"], want)
assert r["none"]["host_launch_ms"] == 0
assert abs(r["graph"]["host_launch_ms"] * 1000 - 4) < 1e-9, r["graph"]["host_launch_ms"]
assert r["graph"]["iteration_ms"] < r["default"]["iteration_ms"]
assert r["none"]["iteration_ms"] <= r["graph"]["iteration_ms"]
slow_host = (kernels * 50 + (b + 2) * 5) / 1000
assert r["slow"]["iteration_ms"] >= slow_host, (r["slow"]["iteration_ms"], slow_host)
PY

# The sweep takes the same options.
"$COLLSIM" sweep --topology "$TOPO" --workload resnet50 --bucket-mb 5,25 --ranks 32 --cuda-graph --format json \
  >"$TMP/sweep.json" 2>/dev/null || fail "sweep --cuda-graph failed"

# Gloo on GPUs copies each bucket to host memory and back over PCIe: slower than NCCL on
# this cluster, and every bucket's all-reduce longer.
run_json --backend gloo >"$TMP/gloo.json" || fail "ddp --backend gloo failed"
python3 - "$TMP" <<'PY' || fail "gloo against nccl"
import json, sys
d = sys.argv[1]
n, g = json.load(open(f"{d}/default.json")), json.load(open(f"{d}/gloo.json"))
assert g["iteration_ms"] > n["iteration_ms"], (g["iteration_ms"], n["iteration_ms"])
for a, b in zip(n["buckets"], g["buckets"]):
    pcie = 16 * 8e9 * 128 / 130 / 8  # V100: PCIe 3.0 x16
    assert b["end_ps"] - b["start_ps"] >= 2 * a["bytes"] / pcie * 1e12, (a, b)
PY
# ZeRO and FSDP steps pay host launches too (and take no --cuda-graph, --join or --no-init-sync).
run_json --sharding fsdp_full_shard >"$TMP/fsdp.json" || fail "fsdp failed"
run_json --sharding fsdp_full_shard --launch-overhead 0us --collective-launch 0us >"$TMP/fsdp0.json" || fail "fsdp without launches failed"
python3 - "$TMP" <<'PY' || fail "sharded host launch figures"
import json, sys
d = sys.argv[1]
a, b = json.load(open(f"{d}/fsdp.json")), json.load(open(f"{d}/fsdp0.json"))
assert a["host_launch_ms"] > 0 and b["host_launch_ms"] == 0 and b["host_wait_ms"] == 0, (a["host_launch_ms"], b["host_launch_ms"])
assert a["iteration_ms"] >= b["iteration_ms"]
PY
expect_error 2 "--cuda-graph" "--sharding ddp" -- ddp --topology "$TOPO" --workload resnet50 --sharding zero2 --cuda-graph
expect_error 2 "--join" "--sharding ddp" -- ddp --topology "$TOPO" --workload resnet50 --sharding zero2 --join 1:2 --steps 3
expect_error 2 "--no-init-sync" "--sharding ddp" -- ddp --topology "$TOPO" --workload resnet50 --sharding zero2 --no-init-sync
expect_error 2 "--launch-overhead" "abc" "a non-negative time" -- ddp --topology "$TOPO" --workload resnet50 --launch-overhead abc
expect_error 2 "--launch-overhead" "-1us" -- ddp --topology "$TOPO" --workload resnet50 --launch-overhead -1us
expect_error 2 "--collective-launch" "2s" "from 0 to" -- ddp --topology "$TOPO" --workload resnet50 --collective-launch 2s
expect_error 2 "--cuda-graph" "never iteration 0" -- ddp --topology "$TOPO" --workload resnet50 --cuda-graph --iteration 0
expect_error 2 "--cuda-graph" "the nccl backend" -- ddp --topology "$TOPO" --workload resnet50 --cuda-graph --backend gloo
expect_error 2 "--cuda-graph" "a static graph" -- ddp --topology "$TOPO" --workload resnet50 --cuda-graph --find-unused-parameters
expect_error 2 "--launch-overhead" "5" -- sweep --topology "$TOPO" --workload resnet50 --ranks 8 --launch-overhead 5
exit 0
