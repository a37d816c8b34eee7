# A plan candidate's "calibration": the file `validate --calibrate` writes, as `collective
# --calibration` reads it. Its link classes slow the candidate's links at every world size,
# its NCCL constants price NCCL's protocols, its DDP slowdown applies to DDP rows; the
# reports name it, a journal's fingerprint covers it; bad input exits 2 naming the file,
# the pointer and what was expected.
source "$(dirname "$0")/lib.bash"
write_plan() {  # write_plan FILE CANDIDATE_EXTRA
  star_plan "$1" "[16, 32]" 256 '{"name": "d", "kind": "ddp"}, {"name": "f", "kind": "fsdp"}' "$2"
}
step_ps() {  # step_ps REPORT_JSON: "strategy<TAB>world<TAB>step_ps" per row
  /usr/bin/python3 -c '
import json, sys
for r in json.load(open(sys.argv[1]))["rows"]:
    print(r["strategy"], r["gpus"], r["step_ps"], sep="\t")' "$1"
}
run_plan() {  # run_plan PLAN REPORT_DIR
  "$COLLSIM" plan "$1" --report "$2" >/dev/null 2>"$TMP/err" || fail "plan $1 failed: $(cat "$TMP/err")"
}
echo '{"links": {"ib": {"efficiency": 0.5}}}' >"$TMP/ib-half.json"
echo '{"links": {"ib": {"efficiency": 0.5}}, "ddp": {"comm_slowdown": 0.5}}' >"$TMP/ib-half-ddp.json"
# Every network step of NCCL's ring and tree 1 ms slower, whatever the protocol NCCL picks.
echo '{"step_latency": {"net": {"tree": {"ll": "1ms", "ll128": "1ms", "simple": "1ms"},
                                "ring": {"ll": "1ms", "ll128": "1ms", "simple": "1ms"}}}}' >"$TMP/slow-net-steps.json"
write_plan "$TMP/plain.json" ''
write_plan "$TMP/half.json" ', "calibration": "ib-half.json"'
write_plan "$TMP/half-ddp.json" ', "calibration": "ib-half-ddp.json"'
write_plan "$TMP/auto.json" ', "algorithm": "auto", "protocol": "auto"'
write_plan "$TMP/auto-steps.json" ', "algorithm": "auto", "protocol": "auto", "calibration": "slow-net-steps.json"'
for p in plain half half-ddp auto auto-steps; do run_plan "$TMP/$p.json" "$TMP/r-$p"; done
for p in plain half half-ddp auto auto-steps; do step_ps "$TMP/r-$p/plan.json" >"$TMP/$p.rows"; done
# Every row slower than the uncalibrated one, and the DDP slowdown slower still on DDP rows.
/usr/bin/python3 - "$TMP" <<'PY' || fail "calibrated plans do not price as expected"
import sys
d = sys.argv[1]
def rows(name):
    out = {}
    for line in open(f"{d}/{name}.rows"):
        s, g, ps = line.rstrip("\n").split("\t")
        out[(s, g)] = int(ps)
    return out
plain, half, half_ddp, auto, steps = (rows(n) for n in ("plain", "half", "half-ddp", "auto", "auto-steps"))
assert len(plain) == 4 and plain.keys() == half.keys() == half_ddp.keys() == auto.keys() == steps.keys(), plain
for k in plain:
    assert half[k] > plain[k], ("ib at half speed", k, half[k], plain[k])
    assert steps[k] > auto[k], ("slower network steps", k, steps[k], auto[k])
    if k[0].startswith("ddp"):
        assert half_ddp[k] > half[k], ("ddp slowdown", k, half_ddp[k], half[k])
    else:
        assert half_ddp[k] == half[k], ("ddp slowdown on a sharded row", k, half_ddp[k], half[k])
PY
# The reports name the file.
/usr/bin/python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["candidates"][0]
assert c["calibration"].endswith("ib-half.json"), c' "$TMP/r-half/plan.json" || fail "plan.json does not name the calibration"
grep -qF 'calibrated by `'"$TMP/ib-half.json"'`' "$TMP/r-half/report.md" || fail "report.md does not name the calibration"
# A journal's fingerprint covers the calibration: resuming after the file changed is refused.
"$COLLSIM" plan "$TMP/half.json" --journal "$TMP/half.jsonl" >/dev/null 2>"$TMP/err" || fail "journaled plan: $(cat "$TMP/err")"
"$COLLSIM" plan "$TMP/half.json" --journal "$TMP/half.jsonl" --resume >/dev/null 2>"$TMP/err" || fail "resume: $(cat "$TMP/err")"
echo '{"links": {"ib": {"efficiency": 0.25}}}' >"$TMP/ib-half.json"
expect_error 2 "--journal" "fingerprint" -- plan "$TMP/half.json" --journal "$TMP/half.jsonl" --resume
# Bad input.
write_plan "$TMP/missing.json" ', "calibration": "nope.json"'
expect_error 2 "$TMP/missing.json" "/candidates/0/calibration" '"nope.json"' "an existing calibration file" -- plan "$TMP/missing.json"
echo '{"links": {"ib": {"efficiency": -1}}}' >"$TMP/bad-eff.json"
write_plan "$TMP/bad.json" ', "calibration": "bad-eff.json"'
expect_error 2 "$TMP/bad-eff.json" "/links/ib/efficiency" "-1" -- plan "$TMP/bad.json"
write_plan "$TMP/ideal.json" ', "protocol": "ideal", "calibration": "slow-net-steps.json"'
expect_error 2 "$TMP/ideal.json" "/candidates/0/calibration" '"slow-net-steps.json"' '"protocol": "auto"' -- plan "$TMP/ideal.json"
write_plan "$TMP/type.json" ', "calibration": 3'
expect_error 2 "$TMP/type.json" "/candidates/0/calibration" -- plan "$TMP/type.json"
echo "plan calibration: ok"
