# The nccl-tests development set (tests/data/nccl-tests/dev): every log has a topology,
# every topology loads (topo validate, exit 0) with as many ranks as its log, and validate
# predicts every log on it (exit 0 or 1: within or beyond tolerance, never 2) with at least
# one predicted row. The errors themselves are scripts/validate_nccl_dev.sh's business.
source "$(dirname "$0")/lib.bash"
DEV=$SRC/tests/data/nccl-tests/dev
shopt -s nullglob
logs=("$DEV"/*.txt)
[[ ${#logs[@]} -gt 0 ]] || fail "no logs in $DEV"
for topo in "$DEV"/topologies/*.json; do
  [[ -f $DEV/$(basename "$topo" .json).txt ]] || fail "$topo has no log"
done
for log in "${logs[@]}"; do
  name=$(basename "$log" .txt)
  topo=$DEV/topologies/$name.json
  [[ -f $topo ]] || fail "$log has no topology $topo"
  "$COLLSIM" topo validate "$topo" >"$TMP/t" 2>"$TMP/terr" || fail "topo validate $topo: $(cat "$TMP/terr")"
  topo_ranks=$(sed -n 's/.*valid: \([0-9]*\) ranks.*/\1/p' "$TMP/t")
  [[ -n $topo_ranks ]] || fail "topo validate $topo printed no rank count: $(cat "$TMP/t")"
  # The algorithm the log's header forces (NCCL_ALGO=Tree), else ring, as the script does.
  forced=$(grep -m1 -oE 'NCCL_ALGO=[A-Za-z]+' "$log" | cut -d= -f2 | tr '[:upper:]' '[:lower:]' || true)
  rc=0
  "$COLLSIM" validate --measured "$log" --topology "$topo" --algo "${forced:-ring}" --tolerance 1000% \
    --median-tolerance 1000% --format json >"$TMP/v.json" 2>"$TMP/verr" || rc=$?
  [[ $rc == 0 || $rc == 1 ]] || fail "validate $name exited $rc: $(cat "$TMP/verr")"
  python3 - "$TMP/v.json" "$topo_ranks" >"$TMP/check" 2>&1 <<'PY' || fail "validate $name: $(tail -1 "$TMP/check")"
import json, sys
rows = [r for r in json.load(open(sys.argv[1]))["rows"] if r.get("predicted_us") is not None]
if not rows:
    sys.exit("no predicted row")
ranks = sorted({r["ranks"] for r in rows})
if ranks != [int(sys.argv[2])]:
    sys.exit(f"the log's rank count {ranks} is not the topology's {sys.argv[2]}")
PY
done
echo "ok"
