# collsim-mpi on 2 and 3 ranks writes byte for byte what collsim writes: the shipped
# capacity plan (its table, and its report folder with JSON, CSV and plots) and a DDP sweep; an error on the
# input ends every rank with collsim's message and exit code, never a hang.
source "$(dirname "$0")/lib.bash"
need_mpi
plan="$SRC/plans/dgx-h100-clusters.json"
# The default table on 2 ranks; the report folder (plan.json, plan.csv, report.md, PNGs)
# on 3.
"$COLLSIM" plan "$plan" >"$TMP/one.txt" 2>"$TMP/err" || fail "collsim plan: $(cat "$TMP/err")"
"${MPIRUN[@]}" -np 2 "$COLLSIM_MPI" plan "$plan" --jobs 1 >"$TMP/mpi.txt" 2>"$TMP/err" ||
  fail "mpirun -np 2 collsim-mpi plan: $(cat "$TMP/err")"
cmp -s "$TMP/one.txt" "$TMP/mpi.txt" || fail "plan: collsim-mpi on 2 ranks differs from collsim: $(diff "$TMP/one.txt" "$TMP/mpi.txt" | head)"
"$COLLSIM" plan "$plan" --report "$TMP/r1" >/dev/null 2>&1 || fail "collsim plan --report"
"${MPIRUN[@]}" -np 3 "$COLLSIM_MPI" plan "$plan" --jobs 1 --report "$TMP/r3" >/dev/null 2>"$TMP/err" ||
  fail "mpirun -np 3 collsim-mpi plan --report: $(cat "$TMP/err")"
diff -r "$TMP/r1" "$TMP/r3" >/dev/null || fail "report folders differ: $(diff -rq "$TMP/r1" "$TMP/r3")"

sweep=(sweep --topology "$SRC/topologies/ddp-4x8-example.json" --workload resnet50 --bucket-mb 1,5,25,100 --ranks 8,16,24,32)
"$COLLSIM" "${sweep[@]}" --format json >"$TMP/sweep1" 2>"$TMP/err" || fail "collsim sweep: $(cat "$TMP/err")"
# 2 ranks x 2 threads, 3 ranks x 1 thread.
for run in "2 2" "3 1"; do
  read -r np jobs <<<"$run"
  "${MPIRUN[@]}" -np $np "$COLLSIM_MPI" "${sweep[@]}" --format json --jobs $jobs >"$TMP/sweep$np" 2>"$TMP/err" ||
    fail "mpirun -np $np collsim-mpi sweep --jobs $jobs: $(cat "$TMP/err")"
  cmp -s "$TMP/sweep1" "$TMP/sweep$np" || fail "sweep: collsim-mpi on $np ranks x $jobs threads differs from collsim"
done

# Bad input: the same message as collsim, once, and exit 2 from mpirun.
rc=0
"${MPIRUN[@]}" -np 2 "$COLLSIM_MPI" plan "$TMP/missing.json" >"$TMP/out" 2>"$TMP/err" || rc=$?
[[ $rc == 2 ]] || fail "a missing plan under mpirun exited $rc, expected 2: $(cat "$TMP/err")"
[[ $(grep -c "missing.json" "$TMP/err") == 1 ]] || fail "expected the error once (rank 0 only): $(cat "$TMP/err")"
# A journal that cannot be used is found by rank 0 after the others wait for work: they
# are released and the run ends with exit 2.
echo '{"not": "a journal"}' >"$TMP/bad.jsonl"
rc=0
timeout 120 "${MPIRUN[@]}" -np 3 "$COLLSIM_MPI" "${sweep[@]}" --journal "$TMP/bad.jsonl" --resume >"$TMP/out" 2>"$TMP/err" || rc=$?
[[ $rc == 2 ]] || fail "an unusable journal under mpirun exited $rc, expected 2: $(cat "$TMP/err")"
grep -qF "bad.jsonl" "$TMP/err" || fail "the journal error does not name the file: $(cat "$TMP/err")"
[[ ! -s $TMP/out ]] || fail "a failed run printed output"
exit 0
