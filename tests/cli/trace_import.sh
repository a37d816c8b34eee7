# scripts/export_workload.py --from-trace on the committed torch.profiler trace of
# tests/data/tiny_model.py (made on CPU by scripts/make_profiler_trace.py): each layer's
# forward/backward time must match, within 1 %, the per-module sums computed here directly
# from the trace's events. Runs without torch (only the --module check at the end needs it).
source "$(dirname "$0")/lib.bash"
DATA="$SRC/tests/data/traces"
python3 "$SRC/scripts/export_workload.py" --workload "$DATA/tiny_model_flops.json" --from-trace "$DATA/tiny_model_cpu.json" \
  --out "$TMP/w.json" 2>"$TMP/err" || fail "export --from-trace failed: $(cat "$TMP/err")"

# Expected times, derived independently (quadratic scans, no shared code): a CPU op counts
# once, at top level (not inside another CPU op); forward: inside the innermost layer scope
# "module::<layer>::forward"; backward: inside an autograd evaluate_function event whose
# "Sequence number" was last recorded, before it, by a forward op inside a layer's scope.
# Two ProfilerStep#N annotations: per-step averages.
python3 - "$DATA/tiny_model_cpu.json" "$TMP/w.json" <<'PY' || fail "imported times differ from the trace's per-module sums"
import json, re, sys
ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"] == "X"]
for i, e in enumerate(ev):
    e["i"], e["end"] = i, e["ts"] + e["dur"]
layers = ["0", "1", "3"]
inside = lambda a, b: b["ts"] <= a["ts"] and a["end"] <= b["end"]  # a within b
scopes = [e for e in ev if re.fullmatch(r"module::(.*)::forward", e["name"]) and e["name"][8:-9] in layers]
ops = [e for e in ev if e.get("cat") == "cpu_op"]
steps = sum(1 for e in ev if e["name"].startswith("ProfilerStep#"))
assert steps == 2, steps
bwd_fns = [e for e in ops if e["name"].startswith("autograd::engine::evaluate_function: ")]
def bwd_of(op):
    return next((f for f in bwd_fns if inside(op, f)), None)
def layer_of(op):
    around = [s for s in scopes if inside(op, s)]
    return min(around, key=lambda s: s["dur"])["name"][8:-9] if around else None
creator = {}
for op in sorted(ops, key=lambda e: (e["ts"], e["i"])):
    seq = op.get("args", {}).get("Sequence number")
    if seq is not None and bwd_of(op) is None:
        creator[seq] = op
def top(op):
    return not any(o is not op and inside(op, o) and (o["dur"] > op["dur"] or o["i"] < op["i"]) for o in ops)
want = {l: [0.0, 0.0] for l in layers}
for op in filter(top, ops):
    f = bwd_of(op)
    if f is None:
        l = layer_of(op)
        if l: want[l][0] += op["dur"] / steps
    else:
        src = creator.get(f["args"].get("Sequence number"))
        l = layer_of(src) if src else None
        if l: want[l][1] += op["dur"] / steps
w = json.load(open(sys.argv[2]))
assert w["measured_on"] == "cpu" and "compute" not in w, w.keys()
got = {l["name"]: (float(l["forward_time"][:-2]), float(l["backward_time"][:-2])) for l in w["layers"]}
assert all("forward_flops" not in l for l in w["layers"])
for l in layers:
    for k, name in ((0, "forward"), (1, "backward")):
        assert want[l][k] > 0, (l, name, want)
        err = abs(got[l][k] - want[l][k]) / want[l][k]
        print(f"layer {l} {name}: trace {want[l][k]:.3f} us, imported {got[l][k]:.3f} us ({err:.2%})")
        assert err <= 0.01, (l, name, got[l][k], want[l][k])
PY
grep -q "not under any layer's scope" "$TMP/err" || fail "no unattributed-time note: $(cat "$TMP/err")"
"$COLLSIM" ddp --workload "$TMP/w.json" --format json >"$TMP/ddp.json" 2>"$TMP/err" ||
  fail "collsim ddp on the imported workload failed: $(cat "$TMP/err")"

# A GPU trace in Kineto's layout (hand-made): kernels count, not CPU ops. Layer "a": addmm
# launches k1 (External id 2, 30 us); layer "b": mm launches k2, found through its
# cuda_runtime launch's correlation 9 only (20 us); backward node seq 5 (created by addmm,
# in "a") launches k3 (External id 11, 50 us). Expected: a 30/50, b 20/0 us.
cat >"$TMP/gpu.json" <<'JSON'
{"deviceProperties": [{"id": 0, "name": "Test GPU"}], "traceEvents": [
 {"ph": "X", "cat": "user_annotation", "name": "module::a::forward", "pid": 1, "tid": 7, "ts": 0, "dur": 100},
 {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 7, "ts": 10, "dur": 50, "args": {"External id": 2, "Sequence number": 5, "Fwd thread id": 1}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 7, "ts": 20, "dur": 5, "args": {"External id": 2, "correlation": 8}},
 {"ph": "X", "cat": "user_annotation", "name": "module::b::forward", "pid": 1, "tid": 7, "ts": 100, "dur": 100},
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 7, "ts": 110, "dur": 50, "args": {"Sequence number": 6}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 7, "ts": 120, "dur": 5, "args": {"correlation": 9}},
 {"ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: AddmmBackward0", "pid": 1, "tid": 9, "ts": 300, "dur": 80, "args": {"External id": 10, "Sequence number": 5, "Fwd thread id": 1}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 9, "ts": 310, "dur": 40, "args": {"External id": 11}},
 {"ph": "X", "cat": "kernel", "name": "gemm1", "pid": 0, "tid": 7, "ts": 30, "dur": 30, "args": {"External id": 2, "correlation": 8}},
 {"ph": "X", "cat": "kernel", "name": "gemm2", "pid": 0, "tid": 7, "ts": 130, "dur": 20, "args": {"correlation": 9}},
 {"ph": "X", "cat": "kernel", "name": "gemm3", "pid": 0, "tid": 7, "ts": 320, "dur": 50, "args": {"External id": 11, "correlation": 12}},
 {"ph": "s", "cat": "ac2g", "id": 8, "pid": 1, "tid": 7, "ts": 20}, {"ph": "f", "cat": "ac2g", "id": 8, "pid": 0, "tid": 7, "ts": 30, "bp": "e"}
]}
JSON
python3 - "$TMP/gpu.json" "$TMP/gw.json" <<'PY' || fail "could not write the GPU test workload"
import json, sys
w = {"name": "gpu", "batch_per_gpu": 1, "optimizer": {"time": "1us"},
     "parameters": [{"name": "a.w", "numel": 10, "dtype": "float32"}, {"name": "b.w", "numel": 10, "dtype": "float32"}],
     "layers": [{"name": "a", "params": ["a.w"], "forward_flops": 1.0, "backward_flops": 1.0},
                {"name": "b", "params": ["b.w"], "forward_flops": 1.0, "backward_flops": 1.0}]}
json.dump(w, open(sys.argv[2], "w"))
PY
python3 "$SRC/scripts/export_workload.py" --workload "$TMP/gw.json" --from-trace "$TMP/gpu.json" --out "$TMP/g.json" 2>"$TMP/err" ||
  fail "export --from-trace (GPU trace) failed: $(cat "$TMP/err")"
python3 - "$TMP/g.json" <<'PY' || fail "GPU trace import is wrong"
import json, sys
w = json.load(open(sys.argv[1]))
got = {l["name"]: (l["forward_time"], l["backward_time"]) for l in w["layers"]}
assert got == {"a": ("30.000us", "50.000us"), "b": ("20.000us", "0.000us")}, got
assert w["measured_on"] == "Test GPU", w["measured_on"]
PY

# Bad input: exit 2, naming the file and what was expected.
sed 's/"module::b::forward"/"module::c::forward"/' "$TMP/gpu.json" >"$TMP/noscope.json"
rc=0; python3 "$SRC/scripts/export_workload.py" --workload "$TMP/gw.json" --from-trace "$TMP/noscope.json" >/dev/null 2>"$TMP/err" || rc=$?
[[ $rc == 2 ]] && grep -q "noscope.json: no module scope for layer(s) \['b'\]" "$TMP/err" || fail "missing scope: rc $rc, $(cat "$TMP/err")"
sed 's/"ts": 10, "dur": 50/"ts": "10", "dur": 50/' "$TMP/gpu.json" >"$TMP/badts.json"
rc=0; python3 "$SRC/scripts/export_workload.py" --workload "$TMP/gw.json" --from-trace "$TMP/badts.json" >/dev/null 2>"$TMP/err" || rc=$?
[[ $rc == 2 ]] && grep -q "badts.json: traceEvents\[1\].ts: expected a number" "$TMP/err" || fail "bad ts: rc $rc, $(cat "$TMP/err")"

# With torch: --module --from-trace gives the same times as --workload --from-trace.
if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  /usr/bin/python3 "$SRC/scripts/export_workload.py" --module "$SRC/tests/data/tiny_model.py:make" --name tiny_model \
    --from-trace "$DATA/tiny_model_cpu.json" --out "$TMP/m.json" 2>"$TMP/err" || fail "--module --from-trace failed: $(cat "$TMP/err")"
  python3 -c 'import json, sys; a, b = (json.load(open(f))["layers"] for f in sys.argv[1:]); assert a == b, (a, b)' \
    "$TMP/m.json" "$TMP/w.json" || fail "--module and --workload imports differ"
  # Kineto's with_stack module events ("nn.Module: <Class>_<k>", k counted per class in
  # first-call order) name the same scopes once the model maps them: same times.
  sed -e 's/"cat":"user_annotation","name":"module::0::forward"/"cat":"python_function","name":"nn.Module: Linear_0"/' \
      -e 's/"cat":"user_annotation","name":"module::1::forward"/"cat":"python_function","name":"nn.Module: BatchNorm1d_0"/' \
      -e 's/"cat":"user_annotation","name":"module::3::forward"/"cat":"python_function","name":"nn.Module: Linear_1"/' \
      "$DATA/tiny_model_cpu.json" >"$TMP/kineto.json"
  ! grep -q 'module::[013]::' "$TMP/kineto.json" || fail "sed left module:: scopes"
  /usr/bin/python3 "$SRC/scripts/export_workload.py" --module "$SRC/tests/data/tiny_model.py:make" --name tiny_model \
    --from-trace "$TMP/kineto.json" --out "$TMP/k.json" 2>"$TMP/err" || fail "nn.Module scopes: $(cat "$TMP/err")"
  python3 -c 'import json, sys; a, b = (json.load(open(f))["layers"] for f in sys.argv[1:]); assert a == b, (a, b)' \
    "$TMP/k.json" "$TMP/w.json" || fail "nn.Module scopes give other times than module:: scopes"
fi
exit 0
