# collsim collective with late ranks (issue 20, stragglers on collectives): a rank that
# enters a ring all-reduce 50 us late delays it by exactly 50 us at 256 MiB (every step of
# the ring waits on it, nothing else changes), reported against the on-time run; a late
# tree finishes sooner after the last arrival than its on-time run takes; seeded jitter
# gives the same bytes twice; a trace replays the same delays; every flag's bad input exits
# 2 naming it.
source "$(dirname "$0")/lib.bash"
rail=(collective --topology "$SRC/topologies/4x-dgx-h100-rail-8x400g-ib.json")
"$COLLSIM" "${rail[@]}" --sizes 256MiB --algo ring --protocol simple --rank-delay 5:50us --format json >"$TMP/ring.json" 2>"$TMP/err" ||
  fail "ring --rank-delay: $(cat "$TMP/err")"
python3 - "$TMP/ring.json" <<'PY' || fail "the late ring does not add up: $(head -c 700 "$TMP/ring.json")"
import json, sys
d = json.load(open(sys.argv[1]))
(row,), (ontime,) = d["rows"], d["healthy_rows"]
assert d["late_ranks"] == [{"rank": 5, "arrival_us": 50.0, "arrival_ps": 50_000_000}], d["late_ranks"]
assert row["time_ps"] == ontime["time_ps"] + 50_000_000, (row["time_ps"], ontime["time_ps"])
PY
"$COLLSIM" "${rail[@]}" --sizes 1MiB --algo tree --protocol ll128 --rank-delay 5:50us --format json >"$TMP/tree.json" 2>&1 ||
  fail "tree --rank-delay: $(cat "$TMP/tree.json")"
python3 - "$TMP/tree.json" <<'PY' || fail "the late tree does not add up: $(head -c 700 "$TMP/tree.json")"
import json, sys
d = json.load(open(sys.argv[1]))
(row,), (ontime,) = d["rows"], d["healthy_rows"]
# Rank 5's subtree waits; the rest of the reduction proceeds meanwhile.
assert ontime["time_ps"] < row["time_ps"] < ontime["time_ps"] + 50_000_000, (row["time_ps"], ontime["time_ps"])
PY
"$COLLSIM" "${rail[@]}" --sizes 1MiB,64MiB --arrival-jitter 20us --seed 3 >"$TMP/j1.txt" 2>&1 || fail "--arrival-jitter"
"$COLLSIM" "${rail[@]}" --sizes 1MiB,64MiB --arrival-jitter 20us --seed 3 >"$TMP/j2.txt" 2>&1 || fail "--arrival-jitter (again)"
cmp -s "$TMP/j1.txt" "$TMP/j2.txt" || fail "the same seed gave different bytes"
"$COLLSIM" "${rail[@]}" --sizes 1MiB,64MiB --arrival-jitter 20us --seed 4 >"$TMP/j3.txt" 2>&1 || fail "--seed 4"
! cmp -s "$TMP/j1.txt" "$TMP/j3.txt" || fail "another seed gave the same bytes"
grep -q "^# late ranks: 31 of 32 enter after the first" "$TMP/j1.txt" || fail "no late-ranks line: $(tail -3 "$TMP/j1.txt")"
grep -q "^# late ranks: 67108864 B takes .* after the last rank entered) against .* with every rank on time" "$TMP/j1.txt" ||
  fail "no per-size line: $(tail -3 "$TMP/j1.txt")"
"$COLLSIM" "${rail[@]}" --sizes 1MiB --rank-delay 5:50us --trace "$TMP/late.json" >/dev/null 2>&1 || fail "--trace with --rank-delay"
"$COLLSIM" check-trace "$TMP/late.json" >/dev/null 2>&1 || fail "the late trace breaks Perfetto's rules"

expect_error 2 "--rank-delay" "from 0 to 31" -- "${rail[@]}" --sizes 1MiB --rank-delay 32:1us
expect_error 2 "--rank-delay" "RANK:DELAY" -- "${rail[@]}" --sizes 1MiB --rank-delay 3
expect_error 2 "--rank-delay" "RANK:DELAY" -- "${rail[@]}" --sizes 1MiB --rank-delay x:1us
expect_error 2 "--rank-delay" "with a unit" -- "${rail[@]}" --sizes 1MiB --rank-delay 3:50
expect_error 2 "--rank-delay" "3600" -- "${rail[@]}" --sizes 1MiB --rank-delay 3:2h
expect_error 2 "--arrival-jitter" -- "${rail[@]}" --sizes 1MiB --arrival-jitter fast
expect_error 2 "--crossover" "--rank-delay" -- "${rail[@]}" --sizes 1MiB --rank-delay 3:1us --crossover
exit 0
