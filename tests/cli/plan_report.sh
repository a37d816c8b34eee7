# Acceptance 3 of issue 8: the shipped plan runs, writes report.md, plan.json, plan.csv
# (and PNG plots when matplotlib is installed, else a plain note), and every table row
# matches its JSON row cell by cell.
source "$(dirname "$0")/lib.bash"
PLAN="$SRC/plans/dgx-h100-clusters.json"
# A folder name with a quote and a blank: the plot script gets it as one argument, no shell between.
REPORT="$TMP/it's a report"
"$COLLSIM" plan "$PLAN" --jobs 2 --report "$REPORT" >"$TMP/table.txt" 2>"$TMP/err" || fail "collsim plan failed: $(cat "$TMP/err")"
for f in report.md plan.json plan.csv; do
  [[ -s $REPORT/$f ]] || fail "report folder lacks $f"
done
if /usr/bin/python3 -c "import matplotlib" 2>/dev/null; then
  ls "$REPORT"/scaling-*.png >/dev/null 2>&1 || fail "matplotlib is installed but no scaling plot was written"
  [[ -s $REPORT/cost-vs-time.png ]] || fail "no cost-vs-time.png"
  grep -q '!\[cost-vs-time.png\](cost-vs-time.png)' "$REPORT/report.md" || fail "report.md does not show the cost plot"
else
  grep -q "PNG plots not written" "$REPORT/report.md" || fail "report.md does not say why plots are missing"
  grep -q "PNG plots not written" "$TMP/err" || fail "stderr does not say why plots are missing"
fi
for s in "## Pareto-best" "## Recommendations" "## Assumptions" "## All combinations"; do
  grep -qF "$s" "$REPORT/report.md" || fail "report.md lacks '$s'"
done
# The table on stdout and the report's JSON: same rows, same order, same cells.
/usr/bin/python3 - "$TMP/table.txt" "$REPORT/plan.json" "$REPORT/plan.csv" <<'PY' || fail "table and JSON disagree"
import csv, json, re, sys
lines = [l.rstrip("\n") for l in open(sys.argv[1]) if not l.startswith("#")]
header = re.split(r"\s{2,}", lines[0].strip())
doc = json.load(open(sys.argv[2]))
rows = doc["rows"]
assert len(lines) - 1 == len(rows), (len(lines) - 1, len(rows))
decimals = {"step_ms": 3, "samples_per_s": 1, "scaling_eff_pct": 1, "exposed_comm_pct": 1, "memory_gib": 2,
            "margin_gib": 2, "cost_per_hour": 2, "cost_per_m_samples": 2}
csv_rows = list(csv.DictReader(open(sys.argv[3])))
assert len(csv_rows) == len(rows)
for line, row, crow in zip(lines[1:], rows, csv_rows):
    cells = re.split(r"\s{2,}", line.strip())
    if len(cells) == len(header) - 1:
        cells.append("")  # an empty pareto cell is trimmed
    t = dict(zip(header, cells))
    for k in ("candidate", "workload", "strategy", "status"):
        assert t[k] == row[k] == crow[k], (k, t[k], row[k])
    assert int(t["gpus"]) == row["gpus"]
    for k, d in decimals.items():
        want = "-" if row[k] is None else f"{row[k]:.{d}f}"
        assert t[k] == want == crow[k], (k, t[k], want, crow[k])
    assert (t["pareto"] == "yes") == row["pareto"]
assert any(r["pareto"] for r in rows), "no Pareto-best row"
assert any(r["status"] == "does not fit" for r in rows), "the 7B DDP rows should not fit"
print(f"{len(rows)} rows agree")
PY
