# Parameters unused in some steps ("unused_in_steps" in a workload) replayed with
# --find-unused-parameters and --iteration N; every bad input exits 2 naming what to fix.
source "$(dirname "$0")/lib.bash"
cat >"$TMP/w.json" <<'JSON'
{"name": "branchy", "measured_on": "test", "optimizer": {"time": "1ms"},
 "parameters": [{"name": "a", "numel": 250000, "dtype": "float32"},
                {"name": "b", "numel": 250000, "dtype": "float32", "unused_in_steps": [3]},
                {"name": "c", "numel": 250000, "dtype": "float32"}],
 "layers": [{"name": "A", "forward_time": "1ms", "backward_time": "2ms", "params": ["a"]},
            {"name": "B", "forward_time": "1ms", "backward_time": "2ms", "params": ["b"]},
            {"name": "C", "forward_time": "1ms", "backward_time": "2ms", "params": ["c"]}]}
JSON
base=(ddp --topology "$SRC/topologies/ddp-4x8-example.json" --workload "$TMP/w.json" --find-unused-parameters --format json)
"$COLLSIM" "${base[@]}" --iteration 3 >"$TMP/s3.json" 2>/dev/null || fail "ddp --iteration 3"
"$COLLSIM" "${base[@]}" --iteration 2 >"$TMP/s2.json" 2>/dev/null || fail "ddp --iteration 2"
python3 - "$TMP" <<'PY' || fail "step 3 skips layer B"
import json, sys
d = sys.argv[1]
s3, s2 = json.load(open(f"{d}/s3.json")), json.load(open(f"{d}/s2.json"))
# Step 3 runs two layers' forward (2 ms) and backward (4 ms); step 2 all three.
assert abs(s3["forward_ms"] - 2) < 1e-9 and abs(s3["backward_ms"] - 4) < 0.5, s3
assert abs(s2["forward_ms"] - 3) < 1e-9 and s2["backward_ms"] >= 6, s2
assert s3["iteration_ms"] < s2["iteration_ms"]
PY

expect_error 2 "--find-unused-parameters" "b is unused in step 3" "w.json" -- ddp --workload "$TMP/w.json" --iteration 3
expect_error 2 "--static-graph" "in some steps only" -- ddp --workload "$TMP/w.json" --iteration 3 --find-unused-parameters --static-graph
expect_error 2 "--iteration" "a step number" -- ddp --workload "$TMP/w.json" --iteration x3
expect_error 2 "--iteration" "a step number" -- ddp --workload "$TMP/w.json" --iteration 99999999999
for bad in '"some"' '[-1]' '3' '[1.5]'; do
  sed "s/\"unused_in_steps\": \[3\]/\"unused_in_steps\": $bad/" "$TMP/w.json" >"$TMP/bad.json"
  expect_error 2 "bad.json" "/parameters/1" "unused_in_steps" "\"all\" or an array of step numbers" -- ddp --workload "$TMP/bad.json"
done
exit 0
