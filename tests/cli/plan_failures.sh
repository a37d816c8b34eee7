# collsim plan with slow GPUs and failures: rows gain the mean step at the slowest GPU's
# pace and the whole run's expected wall time, goodput and cost (the closed form `collsim
# run` prints for the same figures); --failures ranks on time-to-train, so a cluster that
# is fastest per step can lose to a smaller one; same bytes for any --jobs; every field of
# "stragglers" and "failures" exits 2 naming the file, the pointer and what was expected.
source "$(dirname "$0")/lib.bash"
write_plan() {  # write_plan FILE EXTRA_SECTIONS
  cat >"$1" <<JSON
{"name": "reliability",
 "candidates": [{"name": "star-400g", "topology": {"generator": {"kind": "cluster", "server": {"kind": "dgx_h100"},
                 "fabric": {"kind": "star", "link_kind": "ib", "nic_bandwidth": "400Gbps"}}},
                 "world_sizes": [64, 512], "price": {"per_gpu_hour": 2.5}}],
 "workloads": [{"file": "$SRC/workloads/bert-large.json", "global_batch": 4096}],
 "strategies": [{"name": "ddp", "kind": "ddp", "bucket_mb": [25]}] $2}
JSON
}
write_plan "$TMP/base.json" ''
write_plan "$TMP/plan.json" ', "stragglers": {"slow_fraction": 0.01, "slow_speed": 0.8, "jitter_sigma": 0.03, "steps": 10, "seed": 5},
 "failures": {"mtbf_gpu": "50000h", "checkpoint_write": "2min", "restart": "10min", "steps": 200000}'
"$COLLSIM" plan "$TMP/base.json" --format json --jobs 1 >"$TMP/base.out" 2>"$TMP/err" || fail "plan without: $(cat "$TMP/err")"
"$COLLSIM" plan "$TMP/plan.json" --format json --jobs 1 >"$TMP/a.json" 2>"$TMP/err" || fail "plan: $(cat "$TMP/err")"
"$COLLSIM" plan "$TMP/plan.json" --format json --jobs 2 >"$TMP/b.json" 2>&1 || fail "plan --jobs 2"
cmp -s "$TMP/a.json" "$TMP/b.json" || fail "--jobs 1 and 2 differ"
"$COLLSIM" plan "$TMP/plan.json" >"$TMP/a.txt" 2>&1 || fail "plan (table)"
grep -q "^# stragglers: 0.01 of the GPUs" "$TMP/a.txt" || fail "no stragglers line: $(head -6 "$TMP/a.txt")"
grep -q "pareto: best on (train_hours, run_cost)" "$TMP/a.txt" || fail "the table does not rank on the run"
python3 - "$TMP/a.json" "$TMP/base.out" >"$TMP/rows" <<'PY' || fail "the rows do not add up: $(head -c 900 "$TMP/a.json")"
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
base = {r["gpus"]: r for r in json.load(open(sys.argv[2]))["rows"]}
for r in rows:
    # Without stragglers the step is the plan's ordinary one; with them at least as long.
    assert r["nominal_step_ps"] == base[r["gpus"]]["step_ps"], (r["nominal_step_ps"], base[r["gpus"]]["step_ps"])
    assert r["step_ps"] >= r["nominal_step_ps"], r
    run = r["run"]
    assert abs(run["goodput"] - 200000 * r["step_ps"] / 1e12 / run["expected_wall_s"]) < 1e-9, run
    assert abs(run["job_mtbf_s"] - 50000 * 3600 / r["gpus"]) < 1e-6, run
    assert abs(r["run_cost"] - 2.5 * r["gpus"] * run["expected_wall_s"] / 3600) <= 0.5, r
    print(r["gpus"], repr(r["step_ps"] / 1e12), repr(run["checkpoint_interval_s"]), repr(run["goodput"]))
PY
# Each row's run is what `collsim run` computes in closed form for the same figures.
while read -r gpus step interval goodput; do
  "$COLLSIM" run --gpus "$gpus" --step-time "${step}s" --steps 200000 --mtbf-gpu 50000h --checkpoint-write 2min \
    --restart 10min --checkpoint-interval "${interval}s" --runs 10 --format json >"$TMP/run.json" 2>&1 || fail "run: $(cat "$TMP/run.json")"
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert abs(d['goodput_closed_form'] / float(sys.argv[2]) - 1) < 1e-9, (d['goodput_closed_form'], sys.argv[2])" \
    "$TMP/run.json" "$goodput" || fail "$gpus GPUs: plan and run disagree"
done <"$TMP/rows"

# With a harsh failure model the 512-GPU row, faster per step, takes longer to train.
cat >"$TMP/harsh.json" <<'JSON'
{"mtbf_gpu": "500h", "storage_bandwidth": "2GB/s", "restart": "4h", "steps": 200000}
JSON
"$COLLSIM" plan "$TMP/base.json" --failures "$TMP/harsh.json" --format json >"$TMP/h.json" 2>&1 || fail "--failures: $(cat "$TMP/h.json")"
python3 - "$TMP/h.json" <<'PY' || fail "--failures did not rank on time-to-train: $(head -c 900 "$TMP/h.json")"
import json, sys
r = {x["gpus"]: x for x in json.load(open(sys.argv[1]))["rows"]}
assert r[512]["step_ps"] < r[64]["step_ps"]
assert r[512]["train_hours"] > r[64]["train_hours"], (r[512]["train_hours"], r[64]["train_hours"])
assert r[64]["pareto"] and not r[512]["pareto"]
# The checkpoint: BERT-large's model states, 2 + 12 B (Adam mixed, the default) per parameter, at 2 GB/s.
run = r[64]["run"]
assert 330e6 * 14 < run["checkpoint_bytes"] < 340e6 * 14 and run["checkpoint_bytes"] % 14 == 0, run
assert abs(run["checkpoint_s"] - run["checkpoint_bytes"] / 2e9) < 1e-9, run
PY

# Bad input: the file, the JSON pointer, the value and what was expected.
bad() {  # bad SECTION POINTER SUBSTRING...
  write_plan "$TMP/bad.json" ", $1"
  local pointer=$2; shift 2
  expect_error 2 "$TMP/bad.json" "$pointer" "$@" -- plan "$TMP/bad.json"
}
f='"mtbf_gpu": "50000h", "checkpoint_write": "2min", "steps": 1000'
bad '"failures": {"checkpoint_write": "2min", "steps": 1000}' "/failures" "at least one of mtbf_gpu"
bad "\"failures\": {$f, \"mtbf_gpu\": \"5\"}" "/failures/mtbf_gpu" "with a unit"
bad '"failures": {"mtbf_host": "0h", "checkpoint_write": "2min", "steps": 1000}' "/failures/mtbf_host" "positive duration"
bad '"failures": {"mtbf_link": "soon", "checkpoint_write": "2min", "steps": 1000}' "/failures/mtbf_link"
bad "\"failures\": {$f, \"links_per_gpu\": -1}" "/failures/links_per_gpu"
bad '"failures": {"mtbf_gpu": "50000h", "steps": 1000}' "/failures/checkpoint_write" "either checkpoint_write"
bad "\"failures\": {$f, \"storage_bandwidth\": \"10GB/s\"}" "/failures/checkpoint_write" "not both"
bad '"failures": {"mtbf_gpu": "50000h", "storage_bandwidth": "fast", "steps": 1000}' "/failures/storage_bandwidth" "bandwidth"
bad "\"failures\": {$f, \"restore\": 3}" "/failures/restore"
bad "\"failures\": {$f, \"restart\": \"never\"}" "/failures/restart"
bad '"failures": {"mtbf_gpu": "50000h", "checkpoint_write": "2min"}' "/failures/steps"
bad '"failures": {"mtbf_gpu": "50000h", "checkpoint_write": "2min", "steps": 0}' "/failures/steps"
bad "\"failures\": {$f, \"mtbf\": \"1h\"}" "/failures/mtbf"
bad '"failures": "often"' "/failures"
bad '"stragglers": {}' "/stragglers" "slow_fraction with slow_speed, jitter_sigma"
bad '"stragglers": {"slow_fraction": 2, "slow_speed": 0.5}' "/stragglers/slow_fraction"
bad '"stragglers": {"slow_fraction": 0.1}' "/stragglers/slow_speed" "together"
bad '"stragglers": {"slow_fraction": 0.1, "slow_speed": 0}' "/stragglers/slow_speed"
bad '"stragglers": {"jitter_sigma": 9}' "/stragglers/jitter_sigma"
bad '"stragglers": {"jitter_sigma": 0.1, "steps": 0}' "/stragglers/steps"
bad '"stragglers": {"jitter_sigma": 0.1, "seed": -1}' "/stragglers/seed"
bad '"stragglers": {"jitter_sigma": 0.1, "slow": 1}' "/stragglers/slow"
echo '{"mtbf_gpu": "50000h"' >"$TMP/broken.json"
expect_error 2 "$TMP/broken.json" -- plan "$TMP/base.json" --failures "$TMP/broken.json"
expect_error 2 "$TMP/none.json" -- plan "$TMP/base.json" --failures "$TMP/none.json"
echo '{"mtbf_gpu": "50000h", "checkpoint_write": "2min"}' >"$TMP/nosteps.json"
expect_error 2 "$TMP/nosteps.json" "/steps" -- plan "$TMP/base.json" --failures "$TMP/nosteps.json"
exit 0
