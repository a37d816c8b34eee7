# collsim validate on nccl-tests logs and harness records: tolerance verdicts (exit 0/1),
# JSON output, calibration fit and use, and bad input (exit 2).
source "$(dirname "$0")/lib.bash"
LOGS=$SRC/tests/data/nccl-tests/dev
# A 2-host test-bed topology: each host on a 200 Mbit/s ethernet link at MTU 9000; the
# loader charges the TCP/IP overhead: payload 200e6 x 8948/9014 = 198535611 bit/s.
bash "$SRC/scripts/testbed.sh" topology 2 200mbit 9000 >"$TMP/tb2.json" || fail "testbed.sh topology failed"
grep -q '"bandwidth": "200000000bps", "mtu": 9000' "$TMP/tb2.json" || fail "rate/MTU not in topology: $(cat "$TMP/tb2.json")"

# Records as collsim-exec writes them. Ring on 2 hosts, 4 MiB: 2 steps of 2 MiB at
# 198535611/8 B/s = 84.504 ms each, plus a route of 2 links x 25 us per step -> 169.109 ms.
cat >"$TMP/m.jsonl" <<JSON
{"kind":"collective","op":"allreduce","algorithm":"ring","ranks":2,"size":4194304,"time_us":170000,"topology":"tb2.json"}
{"kind":"collective","op":"allreduce","algorithm":"ps","ranks":2,"size":4194304,"time_us":200000,"topology":"tb2.json"}
JSON
"$COLLSIM" validate --measured "$TMP/m.jsonl" --tolerance 100% >"$TMP/v" 2>"$TMP/verr" || fail "validate failed: $(cat "$TMP/verr")"
grep -q "169109.6" "$TMP/v" || fail "ring prediction not 169109.6 us: $(cat "$TMP/v")"
grep -q "2 of 2 rows predicted" "$TMP/v" || fail "no summary: $(cat "$TMP/v")"
# PS on 2 ranks moves 4 MiB each way in turn: 2 x (169.009 ms + 50 us) = 338.1 ms vs 200 ms
# measured: +69 %, beyond 20 % -> exit 1 naming the broken tolerance.
expect_error 1 "beyond the 20% tolerance" -- validate --measured "$TMP/m.jsonl"  --tolerance 20%
"$COLLSIM" validate --measured "$TMP/m.jsonl" --tolerance 100% --format json >"$TMP/j" || fail "json validate failed"
python3 -c "import json,sys; d=json.load(open('$TMP/j')); s=d['summary']; assert s['predicted']==2 and abs(s['max_abs_error']-0.6906)<0.001, s" ||
  fail "json summary wrong: $(cat "$TMP/j")"
"$COLLSIM" validate --measured "$TMP/m.jsonl" --tolerance 100% --format csv | head -1 | grep -q "^source,kind,case" || fail "csv header"

# Every nccl-tests log of the development set imports; with a generous tolerance validate runs on an
# 8-GPU / 16-GPU star (the numbers are the model's business, not this test's).
cat >"$TMP/star16.json" <<JSON
{"name": "star16", "generator": {"kind": "star", "hosts": 16, "bandwidth": "25GB/s", "latency": "5us"}}
JSON
for log in "$LOGS"/*.txt; do
  rows=$(grep -cE '^ +[0-9]+ +[0-9]+ ' "$log")
  rc=0
  "$COLLSIM" validate --measured "$log" --topology "$TMP/star16.json" >"$TMP/h" 2>"$TMP/herr" || rc=$?
  if [[ $rc == 2 ]]; then  # this build has no all-gather algorithm yet: that must be the reason
    grep -q "allgather" "$TMP/herr" || fail "$log: $(cat "$TMP/herr")"
    continue
  fi
  [[ $rc == 0 || $rc == 1 ]] || fail "$log: exit $rc"
  grep -q "$rows of $rows rows predicted" "$TMP/h" || fail "$log: expected $rows rows: $(tail -3 "$TMP/h")"
done

# Calibration: fit on the records, write the file, apply it.
"$COLLSIM" validate --measured "$TMP/m.jsonl" --calibrate "$TMP/cal.json" >"$TMP/c" || fail "calibrate failed"
grep -q "error before" "$TMP/c" && grep -q "error after" "$TMP/c" || fail "calibrate prints no errors: $(cat "$TMP/c")"
python3 -c "import json; d=json.load(open('$TMP/cal.json')); assert 'ethernet' in d['links'] and d['cases']==2" || fail "calibration file: $(cat "$TMP/cal.json")"
"$COLLSIM" validate --measured "$TMP/m.jsonl" --calibration "$TMP/cal.json" --tolerance 100% >/dev/null || fail "--calibration failed"
# Bad input: exit 2 with the file and the problem named.
expect_error 2 "nope.jsonl" "unreadable" -- validate --measured "$TMP/nope.jsonl" --topology "$TMP/tb2.json"
echo "hello world" >"$TMP/words.txt"
expect_error 2 "words.txt" -- validate --measured "$TMP/words.txt" --topology "$TMP/tb2.json"
echo '{"kind":"collective","op":"allreduce","algorithm":"ring","ranks":5,"size":1024,"time_us":10}' >"$TMP/five.jsonl"
expect_error 2 "five.jsonl:1" "mismatched rank count" -- validate --measured "$TMP/five.jsonl" --topology "$TMP/tb2.json"
echo '{"kind":"collective","op":"allreduce","algorithm":"ring","ranks":2,"size":"big","time_us":10}' >"$TMP/bad.jsonl"
expect_error 2 "bad.jsonl:1" "/size" -- validate --measured "$TMP/bad.jsonl" --topology "$TMP/tb2.json"
# The expected list names the op's algorithms only, not the rejected one.
echo '{"kind":"collective","op":"alltoall","algorithm":"ring","ranks":2,"size":1024,"time_us":10}' >"$TMP/a2a.jsonl"
expect_error 2 "a2a.jsonl:1" '"ring"' "for alltoall, a list or auto: direct" -- validate --measured "$TMP/a2a.jsonl" --topology "$TMP/tb2.json"
expect_error 2 "--tolerance" -- validate --measured "$TMP/m.jsonl" --tolerance lots
echo '{"links": {"warp": {"efficiency": 1, "latency": "1us"}}}' >"$TMP/badcal.json"
expect_error 2 "badcal.json" "/links/warp" -- validate --measured "$TMP/m.jsonl" --calibration "$TMP/badcal.json"
echo "ok"
