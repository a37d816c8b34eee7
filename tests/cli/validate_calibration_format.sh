# One calibration format for collective, ddp and validate: what `validate --calibrate`
# writes is accepted by all three; link classes change the predictions as derived; protocol
# constants reach collective (ddp says it does not use them where it runs the ideal
# protocol) and validate; a fit of an nccl-tests log writes NCCL's; bad files exit 2.
source "$(dirname "$0")/lib.bash"
# 2 hosts at 200 Mbit/s, MTU 9000, 25 us per link: TCP payload 200e6 x 8948/9014 / 8 =
# 24,816,951.4 B/s per direction.
bash "$SRC/scripts/testbed.sh" topology 2 200mbit 9000 >"$TMP/tb2.json" || fail "testbed.sh topology failed"
cat >"$TMP/m.jsonl" <<JSON
{"kind":"collective","op":"allreduce","algorithm":"ring","ranks":2,"size":4194304,"time_us":170000,"topology":"tb2.json"}
{"kind":"collective","op":"allreduce","algorithm":"ps","ranks":2,"size":4194304,"time_us":340000,"topology":"tb2.json"}
JSON
cat >"$TMP/toy.json" <<'JSON'
{"name":"toy","measured_on":"cpu","parameters":[{"name":"a","numel":500000,"dtype":"float32"},{"name":"b","numel":500000,"dtype":"float32"}],
 "layers":[{"name":"L0","params":["a"],"forward_time":"10ms","backward_time":"20ms"},{"name":"L1","params":["b"],"forward_time":"10ms","backward_time":"20ms"}],
 "optimizer":{"time":"5ms"}}
JSON
# 1. The fitted file is accepted by every command.
"$COLLSIM" validate --measured "$TMP/m.jsonl" --calibrate "$TMP/fit.json" >"$TMP/c" || fail "calibrate: $(cat "$TMP/c")"
"$COLLSIM" collective --topology "$TMP/tb2.json" --sizes 4MiB --calibration "$TMP/fit.json" >/dev/null 2>"$TMP/e" || fail "collective: $(cat "$TMP/e")"
"$COLLSIM" ddp --topology "$TMP/tb2.json" --workload "$TMP/toy.json" --device H100 --calibration "$TMP/fit.json" >/dev/null 2>"$TMP/e" ||
  fail "ddp: $(cat "$TMP/e")"
"$COLLSIM" validate --measured "$TMP/m.jsonl" --calibration "$TMP/fit.json" --tolerance 100% >/dev/null 2>"$TMP/e" || fail "validate: $(cat "$TMP/e")"

# 2. Ethernet at efficiency 0.5 and 100 us per link: 12,408,475.7 B/s.
echo '{"links": {"ethernet": {"efficiency": 0.5, "latency": "100us"}}}' >"$TMP/cal.json"
# Ring all-reduce of 4 MiB on 2 ranks: 2 steps of 2 MiB = 169.00757 ms, each after a route
# of 2 links x 100 us: 2 x 169.20757 = 338.41928 ms (uncalibrated: 169.10964 ms).
"$COLLSIM" collective --topology "$TMP/tb2.json" --sizes 4MiB --calibration "$TMP/cal.json" --format json >"$TMP/cj" || fail "collective json"
python3 -c "import json; t = json.load(open('$TMP/cj'))['rows'][0]['time_us']; assert abs(t - 338419.278) < 0.01, t" ||
  fail "calibrated collective time: $(cat "$TMP/cj")"
# DDP of the toy workload (nccl: one all-reduce at a time): two buckets of 2,000,000 B, each
# a 2-rank ring of 2 steps of 1,000,000 B = 80.590 ms + 200 us: 2 x 2 x 80.790 = 323.160 ms
# of communication (uncalibrated: 2 x 2 x (40.295 + 0.050) = 161.380 ms).
"$COLLSIM" ddp --topology "$TMP/tb2.json" --workload "$TMP/toy.json" --device H100 --calibration "$TMP/cal.json" --format json >"$TMP/dj" ||
  fail "ddp json"
python3 -c "import json; c = json.load(open('$TMP/dj'))['communication_ms']; assert abs(c - 323.1603) < 1e-3, c" ||
  fail "calibrated ddp communication: $(cat "$TMP/dj")"
"$COLLSIM" ddp --topology "$TMP/tb2.json" --workload "$TMP/toy.json" --device H100 --format json >"$TMP/dj0" || fail "ddp json"
python3 -c "import json; c = json.load(open('$TMP/dj0'))['communication_ms']; assert abs(c - 161.3802) < 1e-3, c" ||
  fail "uncalibrated ddp communication: $(cat "$TMP/dj0")"

# 3. Protocol constants in the same file reach collective; ddp accepts them and says so.
echo '{"kind": "collsim-calibration", "links": {"ethernet": {"efficiency": 0.5, "latency": "100us"}}, "channels": 4}' >"$TMP/both.json"
"$COLLSIM" collective --topology "$TMP/tb2.json" --sizes 4MiB --protocol simple --calibration "$TMP/both.json" --format json >"$TMP/bj" ||
  fail "collective with both"
python3 -c "import json; r = json.load(open('$TMP/bj'))['rows'][0]; assert r['channels'] == 4, r" || fail "channels not applied: $(cat "$TMP/bj")"
"$COLLSIM" ddp --topology "$TMP/tb2.json" --workload "$TMP/toy.json" --device H100 --calibration "$TMP/both.json" >/dev/null 2>"$TMP/w" ||
  fail "ddp with both: $(cat "$TMP/w")"
grep -q "not used by ddp" "$TMP/w" || fail "ddp does not say the protocol constants are unused: $(cat "$TMP/w")"
# A protocol-only file (collective's earlier format) is still accepted.
echo '{"channels": 2}' >"$TMP/proto.json"
"$COLLSIM" collective --topology "$TMP/tb2.json" --sizes 4MiB --protocol simple --calibration "$TMP/proto.json" >/dev/null || fail "protocol-only file"

# 4. An nccl-tests log: the fit moves NCCL's constants (the network's efficiency, the
# protocols' network step latency), writes no link latency, and validate applies them.
LOG="$SRC/tests/data/nccl-tests/dev/a100sxm40x8_2nodes_aws_p4d_efa_4x100g_allreduce_oldformat.txt"
P4D="$SRC/tests/data/nccl-tests/dev/topologies/a100sxm40x8_2nodes_aws_p4d_efa_4x100g_allreduce_oldformat.json"
"$COLLSIM" validate --measured "$LOG" --topology "$P4D" --calibrate "$TMP/p4d.json" >"$TMP/pc" || fail "calibrate p4d: $(cat "$TMP/pc")"
python3 - "$TMP/p4d.json" <<'PY' || fail "p4d fit: $(cat "$TMP/p4d.json")"
import json, sys
c = json.load(open(sys.argv[1]))
assert all("latency" not in l for l in c["links"].values()), c["links"]
assert c["links"]["roce"]["efficiency"] < 0.6, c["links"]  # EFA well below line rate
assert c["links"]["nvswitch"]["efficiency"] == 1.0, c["links"]  # inside the hosts: NCCL's figures
assert "net" in c["step_latency"], c["step_latency"]
assert c["median_error_after"] < c["median_error_before"] / 2, c
PY
for cal in none p4d; do
  args=(); [[ $cal == none ]] || args=(--calibration "$TMP/p4d.json")
  "$COLLSIM" validate --measured "$LOG" --topology "$P4D" "${args[@]}" --tolerance 1000% --format json >"$TMP/v_$cal" ||
    fail "validate ($cal): $(cat "$TMP/v_$cal")"
done
python3 - "$TMP/v_none" "$TMP/v_p4d" "$TMP/p4d.json" <<'PY' || fail "validate does not apply the fitted constants"
import json, sys
before, after, c = (json.load(open(p)) for p in sys.argv[1:])
assert abs(after["summary"]["median_abs_error"] - c["median_error_after"]) < 1e-4, (after["summary"], c)
assert after["summary"]["median_abs_error"] < before["summary"]["median_abs_error"], (before["summary"], after["summary"])
PY

# 5. Bad files: exit 2 naming the file (and the field).
echo '{}' >"$TMP/empty.json"
expect_error 2 "empty.json" "links" -- collective --topology "$TMP/tb2.json" --sizes 4MiB --calibration "$TMP/empty.json"
expect_error 2 "empty.json" "links" -- ddp --topology "$TMP/tb2.json" --workload "$TMP/toy.json" --device H100 --calibration "$TMP/empty.json"
echo '{"links": {"ethernet": {"efficiency": 0, "latency": "1us"}}}' >"$TMP/zero.json"
expect_error 2 "zero.json" "/links/ethernet/efficiency" -- ddp --topology "$TMP/tb2.json" --workload "$TMP/toy.json" --device H100 --calibration "$TMP/zero.json"
expect_error 2 "nope.json" -- collective --topology "$TMP/tb2.json" --sizes 4MiB --calibration "$TMP/nope.json"
echo "ok"
