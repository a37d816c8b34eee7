# collsim sweep end to end: rows, best bucket per world size, CSV/JSON, bad input.
source "$(dirname "$0")/lib.bash"
TOPO="$SRC/topologies/ddp-4x8-example.json"

"$COLLSIM" sweep --topology "$TOPO" --workload resnet50 --bucket-mb 1,25,100 --ranks 8,32 --format json >"$TMP/s.json" 2>/dev/null ||
  fail "sweep --format json failed"
python3 - "$TMP/s.json" <<'PY' || fail "sweep JSON check failed"
import json, sys
s = json.load(open(sys.argv[1]))
assert len(s["rows"]) == 6, len(s["rows"])
assert [b["ranks"] for b in s["best"]] == [8, 32]
for b in s["best"]:
    rows = [r for r in s["rows"] if r["ranks"] == b["ranks"]]
    assert b["iteration_ms"] == min(r["iteration_ms"] for r in rows)
assert s["best"][0]["scaling_efficiency"] == 1.0
PY
"$COLLSIM" sweep --workload resnet50 --bucket-mb 5,25 --ranks 8,16 --format csv >"$TMP/s.csv" 2>/dev/null || fail "generated-cluster sweep failed"
"$COLLSIM" sweep --workload resnet50 --bucket-mb 5,25 --ranks 8,16 --format csv >"$TMP/s2.csv" 2>/dev/null
cmp -s "$TMP/s.csv" "$TMP/s2.csv" || fail "sweep output differs between two identical runs"
[[ $(grep -c . "$TMP/s.csv") == 5 ]] || fail "sweep csv should have a header and 4 rows"
[[ $(awk -F, 'NR > 1 && $8 == 1' "$TMP/s.csv" | wc -l) == 2 ]] || fail "one best row per world size expected"

expect_error 2 "--ranks" "1 to 32" -- sweep --topology "$TOPO" --workload resnet50 --ranks 8,64
expect_error 2 "--bucket-mb" -- sweep --workload resnet50 --bucket-mb 1,x
expect_error 2 "--nic" -- sweep --workload resnet50 --ranks 8 --nic fast
exit 0
