# collsim ddp end to end: table/JSON/CSV output, the trace file, determinism, bad input.
source "$(dirname "$0")/lib.bash"
TOPO="$SRC/topologies/ddp-4x8-example.json"

"$COLLSIM" ddp --topology "$TOPO" --workload resnet50 --trace "$TMP/trace.json" --format json >"$TMP/a.json" 2>/dev/null ||
  fail "ddp --format json failed"
"$COLLSIM" ddp --topology "$TOPO" --workload resnet50 --trace "$TMP/trace2.json" --format json >"$TMP/b.json" 2>/dev/null
cmp -s "$TMP/a.json" "$TMP/b.json" || fail "ddp output differs between two identical runs"
cmp -s "$TMP/trace.json" "$TMP/trace2.json" || fail "trace differs between two identical runs"

# JSON: 32 ranks, 5 buckets at 25 MiB (reference/pytorch-ddp.md 1.6: ResNet-50 rebuilt
# buckets 7.82, 30.04, 25.04, 25.32, 9.27 MiB), exposed <= busy communication, and the
# trace has one all-reduce slice per bucket with the table's start times.
python3 - "$TMP/a.json" "$TMP/trace.json" <<'PY' || fail "ddp JSON or trace check failed"
import json, sys
r = json.load(open(sys.argv[1]))
t = json.load(open(sys.argv[2]))
assert r["ranks"] == 32, r["ranks"]
assert [b["bytes"] for b in r["buckets"]] == [8196000, 31502336, 26255360, 26550272, 9724160], r["buckets"]
assert 0 <= r["exposed_communication_ms"] <= r["communication_busy_ms"] + 1e-9
slices = {e["name"]: e for e in t["traceEvents"] if e["ph"] == "X"}
for b in r["buckets"]:
    s = slices["allreduce bucket %d" % b["index"]]
    assert s["tid"] == 2 and abs(s["ts"] - b["start_ps"] / 1e6) < 1e-3, (s, b)
PY

"$COLLSIM" ddp --topology "$TOPO" --workload resnet50 --ranks 8 >"$TMP/t.txt" 2>/dev/null || fail "ddp table failed"
grep -q "exposed communication" "$TMP/t.txt" || fail "table lacks the exposed communication line"
"$COLLSIM" ddp --topology "$TOPO" --workload resnet50 --format csv --hook fp16 >"$TMP/c.csv" 2>/dev/null || fail "csv failed"
head -1 "$TMP/c.csv" | grep -q "^bucket,params,bytes,wire_bytes" || fail "csv header"
# fp16 hook: wire bytes are half the bucket bytes.
awk -F, 'NR > 1 && $4 * 2 != $3 { exit 1 }' "$TMP/c.csv" || fail "fp16 wire bytes are not half the bucket bytes"

expect_error 2 "--hook" "powersgd:R" -- ddp --workload resnet50 --hook zip
expect_error 2 "--hook" "onebit:W" -- ddp --workload resnet50 --hook onebit:x
expect_error 2 "--hook" "onebit:W" -- ddp --workload resnet50 --hook onebit:-5
expect_error 2 "--steps" "--hook onebit" -- ddp --workload resnet50 --steps 10
# The 1-bit hook: a warm-up step at full precision, then compressed steps; with --steps,
# the run's mean lies between the two.
"$COLLSIM" ddp --topology "$TOPO" --workload resnet50 --hook onebit:10 --steps 100 --format json >"$TMP/onebit.json" 2>/dev/null ||
  fail "ddp --hook onebit:10 --steps 100 failed"
python3 - "$TMP/onebit.json" <<'PY' || fail "1-bit run figures"
import json, sys
d = json.load(open(sys.argv[1]))["onebit"]
assert d["warmup_steps"] == 10 and d["steps"] == 100, d
want = (10 * d["warmup_iteration_ms"] + 90 * d["compressed_iteration_ms"]) / 100
assert abs(d["mean_iteration_ms"] - want) < 1e-6, (d, want)
PY
expect_error 2 "--bucket-mb" -- ddp --workload resnet50 --bucket-mb 0
expect_error 2 "--backend" -- ddp --workload resnet50 --backend mpi
expect_error 2 "--device" "B200" -- ddp --workload resnet50 --device TPU
expect_error 2 "--ranks" -- ddp --workload resnet50 --ranks 9
expect_error 2 "--algo" -- ddp --workload resnet50 --algo magic
expect_error 2 "--iteration" "a step number" -- ddp --workload resnet50 --iteration three
expect_error 2 "--accumulate" "1 to 1000" -- ddp --workload resnet50 --accumulate 0
expect_error 2 "nope.json" -- ddp --workload "$TMP/nope.json"
echo '{"name": "x", "parameters": [{"name": "w", "numel": 4, "dtype": "float32"}], "layers": [{"name": "L", "forward_flops": 1, "backward_flops": 1, "params": ["v"]}]}' >"$TMP/bad.json"
expect_error 2 "bad.json" "/layers/0/params/0" -- ddp --workload "$TMP/bad.json"
expect_error 2 "--trace" -- ddp --workload resnet50 --trace "$TMP/no/such/dir/t.json"
exit 0
