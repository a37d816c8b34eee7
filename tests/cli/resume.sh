# A journaled run killed partway and rerun with --resume gives the same final report as
# an uninterrupted run and evaluates only the items the journal lacks: collsim-mpi on 4
# ranks killed with SIGKILL, and collsim itself. Also the journal's refusals.
source "$(dirname "$0")/lib.bash"
# 24 items (3 candidates x 8 world sizes) of a few tenths of a second each.
cat >"$TMP/plan.json" <<JSON
{"name": "resume",
 "candidates": [
   {"name": "star-400g", "topology": {"generator": {"kind": "cluster", "server": {"kind": "dgx_h100"},
     "fabric": {"kind": "star", "link_kind": "ib", "nic_bandwidth": "400Gbps"}}},
    "world_sizes": [8, 16, 32, 64, 128, 256, 512, 1024], "price": {"per_gpu_hour": 2.5}},
   {"name": "star-200g", "topology": {"generator": {"kind": "cluster", "server": {"kind": "dgx_h100"},
     "fabric": {"kind": "star", "link_kind": "ib", "nic_bandwidth": "200Gbps"}}},
    "world_sizes": [8, 16, 32, 64, 128, 256, 512, 1024], "price": {"per_gpu_hour": 2.0}},
   {"name": "fat-tree-400g", "topology": {"generator": {"kind": "cluster", "server": {"kind": "dgx_h100"},
     "fabric": {"kind": "fat_tree", "link_kind": "ib", "nic_bandwidth": "400Gbps", "nics_per_leaf": 32, "spines": 4}}},
    "world_sizes": [8, 16, 32, 64, 128, 256, 512, 1024], "price": {"per_gpu_hour": 2.2}}],
 "workloads": [{"file": "$SRC/workloads/bert-large.json", "global_batch": 1024},
               {"file": "$SRC/workloads/llama2-7b.json", "global_batch": 1024}],
 "strategies": [{"name": "ddp", "kind": "ddp", "bucket_mb": [25, 100], "accumulate": [1, 2]},
                {"name": "fsdp", "kind": "fsdp", "sharding": ["full_shard", "hybrid_shard"]}]}
JSON
items=24
"$COLLSIM" plan "$TMP/plan.json" --format json >"$TMP/whole.json" 2>"$TMP/err" || fail "uninterrupted plan: $(cat "$TMP/err")"

# journal_items FILE: finished items in a journal (its lines but the header).
journal_items() { echo $(($(wc -l <"$1") - 1)); }
# kill_partway FILE CMD...: starts CMD in its own process group and kills the group with
# SIGKILL once FILE holds two items. The plan runs its largest items first and the small
# ones finish in a burst at the end (the last half took 0.2 s of 3.5 s on a 2-core
# machine, and a faster CI machine finished it between two polls), so the kill comes early,
# while most of the run's time is still ahead.
kill_partway() {
  local file=$1; shift
  setsid "$@" >/dev/null 2>&1 &
  local pid=$! waited=0
  while :; do
    [[ -f $file ]] && (($(journal_items "$file") >= 2)) && break
    kill -0 $pid 2>/dev/null || fail "the run ended before it could be killed partway ($*)"
    sleep 0.05
    waited=$((waited + 1))
    ((waited < 6000)) || fail "no journal lines after 300 s ($*)"
  done
  kill -KILL -- -$pid 2>/dev/null
  # MPI ranks that left the process group go too: every process naming this journal.
  pkill -KILL -f -- "$file" 2>/dev/null || true
  wait $pid 2>/dev/null || true
  sleep 0.2
  local done_now
  done_now=$(journal_items "$file")
  ((done_now < items)) || fail "the run finished before the kill took effect ($*)"
  echo "killed with $done_now of $items items journaled: $1 ..." >&2
  echo "$done_now"
}
# resume_check FILE DONE CMD...: reruns CMD with --resume; the report equals the
# uninterrupted one and only items - DONE ran.
resume_check() {
  local file=$1 done_before=$2; shift 2
  "$@" --resume --format json >"$TMP/resumed.json" 2>"$TMP/err" || fail "resume: $(cat "$TMP/err")"
  cmp -s "$TMP/whole.json" "$TMP/resumed.json" || fail "the resumed report differs from the uninterrupted one ($*)"
  grep -qF "$done_before items taken from it, $((items - done_before)) evaluated now" "$TMP/err" ||
    fail "expected $done_before items from the journal and $((items - done_before)) evaluated: $(cat "$TMP/err")"
  [[ $(journal_items "$file") == "$items" ]] || fail "the journal holds $(journal_items "$file") items, expected $items"
  [[ $(tail -c 1 "$file" | od -An -c | tr -d ' ') == '\n' ]] || fail "the journal does not end with a whole line"
}

done1=$(kill_partway "$TMP/one.jsonl" "$COLLSIM" plan "$TMP/plan.json" --jobs 2 --journal "$TMP/one.jsonl") || exit 1
resume_check "$TMP/one.jsonl" "$done1" "$COLLSIM" plan "$TMP/plan.json" --jobs 2 --journal "$TMP/one.jsonl"

# The journal's refusals: an existing journal without --resume, --resume alone, a journal
# of other inputs.
expect_error 2 "--journal" "add --resume" -- plan "$TMP/plan.json" --journal "$TMP/one.jsonl"
expect_error 2 "--resume" "--journal" -- plan "$TMP/plan.json" --resume
sed 's/"global_batch": 1024}/"global_batch": 512}/' "$TMP/plan.json" >"$TMP/other.json"
expect_error 2 "--journal" "fingerprint" -- plan "$TMP/other.json" --journal "$TMP/one.jsonl" --resume

if command -v mpirun >/dev/null; then
  need_mpi
  done4=$(kill_partway "$TMP/mpi.jsonl" "${MPIRUN[@]}" -np 4 "$COLLSIM_MPI" plan "$TMP/plan.json" --jobs 1 --journal "$TMP/mpi.jsonl") || exit 1
  resume_check "$TMP/mpi.jsonl" "$done4" "${MPIRUN[@]}" -np 4 "$COLLSIM_MPI" plan "$TMP/plan.json" --jobs 1 --journal "$TMP/mpi.jsonl"
else
  echo "SKIP: the 4-rank kill-and-resume half: mpirun is not installed (scripts/setup.sh installs openmpi-bin)"
  exit 77
fi
exit 0
