# collsim run: a training run with failures. The README's 16,384-GPU example: same seed,
# same bytes (table and JSON); the Monte Carlo goodput within 2 % of the closed form and
# the optimal interval within 10 % of Daly's; every flag's bad input exits 2 naming it.
source "$(dirname "$0")/lib.bash"
args=(run --gpus 16384 --step-time 5s --steps 100000 --mtbf-gpu 50000h --checkpoint-write 5min --restart 10min)
"$COLLSIM" "${args[@]}" >"$TMP/a.txt" 2>"$TMP/err" || fail "collsim run: $(cat "$TMP/err")"
"$COLLSIM" "${args[@]}" >"$TMP/b.txt" 2>&1 || fail "collsim run (again)"
cmp -s "$TMP/a.txt" "$TMP/b.txt" || fail "two runs with the same seed differ"
"$COLLSIM" "${args[@]}" --seed 2 >"$TMP/c.txt" 2>&1 || fail "collsim run --seed 2"
! cmp -s "$TMP/a.txt" "$TMP/c.txt" || fail "another seed gave the same bytes"
grep -q "^goodput" "$TMP/a.txt" || fail "no goodput line: $(cat "$TMP/a.txt")"
"$COLLSIM" "${args[@]}" --format json >"$TMP/a.json" 2>&1 || fail "collsim run --format json"
python3 - "$TMP/a.json" <<'PY' || fail "the JSON's figures are off: $(cat "$TMP/a.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert abs(d["goodput"] / d["goodput_closed_form"] - 1) < 0.02, (d["goodput"], d["goodput_closed_form"])
s = d["interval_search"]
assert abs(s["monte_carlo_optimum_s"] / s["daly_s"] - 1) < 0.10, s
assert abs(d["checkpoint_interval_s"] / s["daly_s"] - 1) < 0.10, d["checkpoint_interval_s"]
assert d["runs"] == 1000 and d["gpus"] == 16384
PY
"$COLLSIM" "${args[@]}" --format csv >"$TMP/a.csv" 2>&1 || fail "collsim run --format csv"
head -1 "$TMP/a.csv" | grep -q "^interval_s,wall_monte_carlo_s" || fail "CSV header: $(head -1 "$TMP/a.csv")"

expect_error 2 "--step-time" "with a unit" -- run --gpus 8 --step-time 5 --steps 10 --checkpoint-write 1min
expect_error 2 "--mtbf-gpu" "positive duration" -- run --gpus 8 --step-time 5s --steps 10 --mtbf-gpu 0h --checkpoint-write 1min
expect_error 2 "--mtbf-host" -- run --gpus 8 --step-time 5s --steps 10 --mtbf-host soon --checkpoint-write 1min
expect_error 2 "--mtbf-link" -- run --gpus 8 --step-time 5s --steps 10 --mtbf-link 1e13s --checkpoint-write 1min
expect_error 2 "--checkpoint-write" "--checkpoint-size" -- run --gpus 8 --step-time 5s --steps 10
expect_error 2 "--checkpoint-write" "not both" -- run --gpus 8 --step-time 5s --steps 10 --checkpoint-write 1min --checkpoint-size 1TB --storage-bandwidth 10GB/s
expect_error 2 "--checkpoint-size" -- run --gpus 8 --step-time 5s --steps 10 --checkpoint-size lots --storage-bandwidth 10GB/s
expect_error 2 "--storage-bandwidth" -- run --gpus 8 --step-time 5s --steps 10 --checkpoint-size 1TB --storage-bandwidth fast
expect_error 2 "--checkpoint-interval" -- run --gpus 8 --step-time 5s --steps 10 --checkpoint-write 1min --checkpoint-interval often
expect_error 2 "--restart" -- run --gpus 8 --step-time 5s --steps 10 --checkpoint-write 1min --restart never
expect_error 2 "--restore" -- run --gpus 8 --step-time 5s --steps 10 --checkpoint-write 1min --restore 3
expect_error 2 "--gpus" -- run --gpus 0 --step-time 5s --steps 10 --checkpoint-write 1min
expect_error 2 "--steps" -- run --gpus 8 --step-time 5s --steps 0 --checkpoint-write 1min
expect_error 2 "--runs" -- run --gpus 8 --step-time 5s --steps 10 --checkpoint-write 1min --runs 0
expect_error 2 "--format" -- run --gpus 8 --step-time 5s --steps 10 --checkpoint-write 1min --format xml
# An MTBF so short that a checkpoint interval is almost never reached: refused up front.
expect_error 2 "almost never reaches a checkpoint" -- run --gpus 16384 --step-time 5s --steps 1000 --mtbf-gpu 1h --checkpoint-write 5min --checkpoint-interval 1h
# So many intervals that the estimate would run for hours: refused up front, not a hang.
expect_error 2 "use fewer runs" -- run --gpus 8 --step-time 1s --steps 1000000000000 --checkpoint-interval 1s --checkpoint-write 1s
# Without failures: one checkpoint at the end, goodput = training / (training + checkpoint).
"$COLLSIM" run --gpus 8 --step-time 1s --steps 100 --checkpoint-write 10s --format json >"$TMP/n.json" 2>&1 || fail "no failures"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert abs(d['goodput'] - 100/110) < 1e-12, d['goodput']" "$TMP/n.json" ||
  fail "without failures goodput should be 100/110: $(cat "$TMP/n.json")"
# --plot: the wall time against the interval as a PNG (the same bytes twice), for rates and
# for a trace; without matplotlib, exit 1 saying so.
if /usr/bin/python3 -c "import matplotlib" 2>/dev/null; then
  "$COLLSIM" "${args[@]}" --runs 50 --plot "$TMP/a b.png" >/dev/null 2>"$TMP/err" || fail "--plot: $(cat "$TMP/err")"
  "$COLLSIM" "${args[@]}" --runs 50 --plot "$TMP/c.png" >/dev/null 2>&1 || fail "--plot (again)"
  [[ $(head -c 8 "$TMP/a b.png" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] || fail "--plot wrote no PNG"
  cmp -s "$TMP/a b.png" "$TMP/c.png" || fail "two plots of the same run differ"
  [[ ! -e "$TMP/a b.png.collsim.json" ]] || fail "--plot left its data file behind"
  "$COLLSIM" run --gpus 16384 --step-time 5s --steps 100000 --checkpoint-write 5min --restart 10min \
    --failure-trace "$SRC/examples/failure-traces/llama3-rate-synthetic.json" --plot "$TMP/t.png" >/dev/null 2>&1 || fail "--plot with a trace"
  [[ -s $TMP/t.png ]] || fail "--plot with a trace wrote nothing"
  expect_error 1 "--plot" "no interruptions" -- run --gpus 8 --step-time 1s --steps 100 --checkpoint-write 10s --plot "$TMP/n.png"
else
  expect_error 1 "--plot" "matplotlib" -- "${args[@]}" --runs 50 --plot "$TMP/a.png"
fi
exit 0
