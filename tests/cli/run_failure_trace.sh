# collsim run --failure-trace: the shipped synthetic trace at the README's scale replays
# to the same bytes every time, its figures add up (wall = training + lost + checkpoints +
# recovery; every interruption of the trace before the run's end struck it, in order) and
# --checkpoint-interval auto takes the scan's best point; a hand-derived trace gives its
# wall time exactly; the Monte Carlo flags are refused beside a trace; and every bad field
# of a trace file exits 2 naming the file, the JSON pointer, the value and what was expected.
source "$(dirname "$0")/lib.bash"
trace=$SRC/examples/failure-traces/llama3-rate-synthetic.json
args=(run --gpus 16384 --step-time 5s --steps 100000 --checkpoint-write 5min --restart 10min --failure-trace "$trace")
"$COLLSIM" "${args[@]}" >"$TMP/a.txt" 2>"$TMP/err" || fail "collsim run --failure-trace: $(cat "$TMP/err")"
"$COLLSIM" "${args[@]}" >"$TMP/b.txt" 2>&1 || fail "collsim run --failure-trace (again)"
cmp -s "$TMP/a.txt" "$TMP/b.txt" || fail "two replays of the same trace differ"
grep -q "^goodput" "$TMP/a.txt" || fail "no goodput line: $(cat "$TMP/a.txt")"
grep -q "SYNTHETIC" "$TMP/a.txt" || fail "the trace's description is not shown: $(head -5 "$TMP/a.txt")"
grep -q "^# the trace ends at 1296.000 h; the run ended at" "$TMP/a.txt" || fail "no line on the trace's end: $(cat "$TMP/a.txt")"
"$COLLSIM" "${args[@]}" --format json >"$TMP/a.json" 2>&1 || fail "collsim run --failure-trace --format json"
python3 - "$TMP/a.json" "$trace" <<'PY' || fail "the JSON's figures are off: $(head -c 3000 "$TMP/a.json")"
import json, sys
d = json.load(open(sys.argv[1]))
t = json.load(open(sys.argv[2]))
parts = d["training_s"] + d["lost_s"] + d["checkpointing_s"] + d["recovery_s"]
assert abs(parts / d["wall_s"] - 1) < 1e-9, (parts, d["wall_s"])
hit = d["interruptions_hit"]
assert len(hit) == d["interruptions"] > 10, len(hit)
# Every interruption of the trace before the run's end struck, in order, with its own cause.
assert [h["index"] for h in hit] == list(range(len(hit)))
assert d["interruptions_after_run"] == len(t["interruptions"]) - len(hit)
for h in hit:
    assert h["cause"] == t["interruptions"][h["index"]].get("cause"), h
    assert h["during"] in ("training", "checkpoint", "restart", "restore"), h
    assert 0 <= h["step"] <= d["steps"] and h["lost_s"] >= 0, h
assert hit[-1]["at_s"] < d["wall_s"]
s = d["interval_search"]
assert len(s["points"]) >= 20
assert d["checkpoint_interval_s"] == s["best_s"]
best = min(s["points"], key=lambda p: p["wall_s"])
assert best["interval_s"] == s["best_s"] and best["wall_s"] == d["wall_s"], (best, d["wall_s"])
assert abs(s["job_mtbf_s"] - 54 * 86400 / len(t["interruptions"])) < 1e-6
assert d["failure_trace"]["file"].endswith("llama3-rate-synthetic.json") and "runs" not in d and "seed" not in d
PY
"$COLLSIM" "${args[@]}" --format csv >"$TMP/a.csv" 2>&1 || fail "collsim run --failure-trace --format csv"
head -1 "$TMP/a.csv" | grep -qx "interval_s,wall_s,goodput,interruptions" || fail "CSV header: $(head -1 "$TMP/a.csv")"
[[ $(wc -l <"$TMP/a.csv") -ge 21 ]] || fail "CSV: fewer than 20 scan points"

# By hand (tests/unit/failure_trace_test.cpp): 10 steps of 1 s, a checkpoint every 5 written
# in 1 s, restart 2 s, restore 1 s, one interruption at 8 s: 12 s failure-free + 2 s of
# training lost + 3 s of recovery = 17 s; the trace ends at 8 s, and the run goes on 9 s.
small=(run --gpus 8 --step-time 1s --steps 10 --checkpoint-interval 5s --checkpoint-write 1s --restart 2s --restore 1s)
echo '{"interruptions": [{"at": "8s", "cause": "GPU HBM3 ECC"}]}' >"$TMP/one.json"
"$COLLSIM" "${small[@]}" --failure-trace "$TMP/one.json" --format json >"$TMP/one.out" 2>&1 || fail "the small trace: $(cat "$TMP/one.out")"
python3 - "$TMP/one.out" <<'PY' || fail "the small trace's figures: $(cat "$TMP/one.out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["wall_s"] == 17 and d["lost_s"] == 2 and d["recovery_s"] == 3 and d["interruptions"] == 1, d
assert d["interruptions_hit"] == [{"index": 0, "at_s": 8, "during": "training", "step": 8, "lost_s": 2, "cause": "GPU HBM3 ECC"}], d
assert d["failure_free_after_trace_s"] == 9 and d["checkpoint_interval_choice"] == "given"
PY
"$COLLSIM" "${small[@]}" --failure-trace "$TMP/one.json" >"$TMP/one.txt" 2>&1 || fail "the small trace as a table"
grep -q "^# the trace ends at 0.002 h; the run went on failure-free for" "$TMP/one.txt" || fail "no failure-free line: $(cat "$TMP/one.txt")"
grep -q "GPU HBM3 ECC" "$TMP/one.txt" || fail "the table lacks the cause: $(cat "$TMP/one.txt")"
# A trace without interruptions is the failure-free run: one checkpoint at the end (auto).
echo '{"description": "a quiet week", "interruptions": [], "end": "7d"}' >"$TMP/none.json"
"$COLLSIM" run --gpus 8 --step-time 1s --steps 100 --checkpoint-write 10s --failure-trace "$TMP/none.json" --format json \
  >"$TMP/none.out" 2>&1 || fail "the empty trace: $(cat "$TMP/none.out")"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['wall_s'] == 110 and 'interval_search' not in d, d" \
  "$TMP/none.out" || fail "the empty trace should take 100 s + one 10 s checkpoint: $(cat "$TMP/none.out")"

# A replay of more than 2e8 intervals is refused up front, not ground through.
expect_error 2 "allowed per replay" "longer checkpoint interval" -- run --gpus 8 --step-time 1s --steps 1000000000000 \
  --checkpoint-write 1s --failure-trace "$TMP/one.json"

# The Monte Carlo's flags are refused beside a trace, each by name.
for flag in "--mtbf-gpu 50000h" "--mtbf-host 1e6h" "--mtbf-link 1e6h" "--runs 10" "--seed 3"; do
  expect_error 2 "${flag%% *}" "--failure-trace" -- "${small[@]}" --failure-trace "$TMP/one.json" $flag
done

# Bad trace files: each names the file, the pointer, the value and what was expected.
bad() {  # bad NAME JSON SUBSTRING...: writes $TMP/NAME.json and expects exit 2 naming it
  local name=$1 text=$2
  shift 2
  printf '%s\n' "$text" >"$TMP/$name.json"
  expect_error 2 "$TMP/$name.json" "$@" -- "${small[@]}" --failure-trace "$TMP/$name.json"
}
expect_error 2 "$TMP/missing.json" "readable file" -- "${small[@]}" --failure-trace "$TMP/missing.json"
bad not_json '{"interruptions": [' "well-formed JSON"
bad not_object '[{"at": "1h"}]' "a JSON object"
bad no_list '{"description": "x"}' "/interruptions" "required"
bad list_object '{"interruptions": {"at": "1h"}}' "/interruptions" "an array"
bad entry_string '{"interruptions": ["1h"]}' "/interruptions/0" '"1h"' "a JSON object"
bad no_at '{"interruptions": [{"cause": "x"}]}' "/interruptions/0/at" "required"
bad bare_at '{"interruptions": [{"at": "1h"}, {"at": "3.2"}]}' "/interruptions/1/at" '"3.2"' "with a unit"
bad number_at '{"interruptions": [{"at": 3.2}]}' "/interruptions/0/at" "3.2" "with a unit"
bad negative_at '{"interruptions": [{"at": "-1h"}]}' "/interruptions/0/at" '"-1h"' "a positive duration"
bad zero_at '{"interruptions": [{"at": "0s"}]}' "/interruptions/0/at" '"0s"' "a positive duration"
bad huge_at '{"interruptions": [{"at": "1e13s"}]}' "/interruptions/0/at" "at most 1e12 s"
bad backwards '{"interruptions": [{"at": "2h"}, {"at": "3h"}, {"at": "1h"}]}' "/interruptions/2/at" '"1h"' \
  'after the interruption before it ("3h" at /interruptions/1/at)'
bad twice '{"interruptions": [{"at": "1h"}, {"at": "60min"}]}' "/interruptions/1/at" '"60min"' "one at a time"
bad cause_number '{"interruptions": [{"at": "1h", "cause": 7}]}' "/interruptions/0/cause" "a string"
bad unknown_entry '{"interruptions": [{"at": "1h", "node": "h0"}]}' "/interruptions/0/node" 'unknown key "node"' "at, cause"
bad unknown_top '{"interruptions": [], "repeat": true}' "/repeat" 'unknown key "repeat"'
bad description_number '{"interruptions": [], "description": 1}' "/description" "a string"
bad end_before '{"interruptions": [{"at": "2h"}], "end": "1h"}' "/end" '"1h"' "at or after the last interruption"
bad end_bare '{"interruptions": [], "end": "7"}' "/end" '"7"' "with a unit"
exit 0
