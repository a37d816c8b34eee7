# `collsim plan --jobs N` gives the same bytes for any N (stdout in every format and the
# report folder, PNGs included), and the progress bar never reaches stdout.
source "$(dirname "$0")/lib.bash"
cat >"$TMP/plan.json" <<JSON
{"name": "determinism",
 "candidates": [
   {"name": "star-400g", "topology": {"generator": {"kind": "cluster", "server": {"kind": "dgx_h100"},
     "fabric": {"kind": "star", "link_kind": "ib", "nic_bandwidth": "400Gbps"}}},
    "world_sizes": [8, 16, 32], "price": {"per_gpu_hour": 2.5}},
   {"name": "fat-tree-200g", "topology": {"generator": {"kind": "cluster", "server": {"kind": "dgx_h100"},
     "fabric": {"kind": "fat_tree", "link_kind": "ib", "nic_bandwidth": "200Gbps", "nics_per_leaf": 16, "spines": 2}}},
    "world_sizes": [16, 32], "price": {"purchase_per_gpu": 40000, "amortization_years": 4}}],
 "workloads": [{"file": "$SRC/workloads/bert-large.json", "global_batch": 256}],
 "strategies": [{"name": "ddp", "kind": "ddp", "bucket_mb": [25, 100], "accumulate": [1, 2]}]}
JSON
for fmt in table json csv; do
  "$COLLSIM" plan "$TMP/plan.json" --format $fmt --jobs 1 >"$TMP/j1.$fmt" 2>"$TMP/err" || fail "jobs 1: $(cat "$TMP/err")"
  "$COLLSIM" plan "$TMP/plan.json" --format $fmt --jobs 2 --progress >"$TMP/j2.$fmt" 2>"$TMP/err2" || fail "jobs 2: $(cat "$TMP/err2")"
  cmp -s "$TMP/j1.$fmt" "$TMP/j2.$fmt" || fail "--format $fmt differs between --jobs 1 and 2"
  grep -q "items, .* items/s" "$TMP/err2" || fail "--progress printed no progress line on stderr"
  ! grep -q "#####" "$TMP/j2.$fmt" || fail "the progress bar reached stdout"
done
# 5 worlds x 4 variants = 20 rows (+ header and 2 comment lines in the table).
[[ $(wc -l <"$TMP/j1.csv") == 21 ]] || fail "expected 20 CSV rows, got $(($(wc -l <"$TMP/j1.csv") - 1))"
"$COLLSIM" plan "$TMP/plan.json" --jobs 1 --report "$TMP/r1" >/dev/null 2>&1 || fail "report, jobs 1"
"$COLLSIM" plan "$TMP/plan.json" --jobs 3 --report "$TMP/r3" >/dev/null 2>&1 || fail "report, jobs 3"
diff -r "$TMP/r1" "$TMP/r3" >/dev/null || fail "report folders differ between --jobs 1 and 3: $(diff -rq "$TMP/r1" "$TMP/r3")"
