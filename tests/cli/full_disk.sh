# Results are never half-written: on a full disk (a small tmpfs) every command that writes
# a file exits 2 naming the path, and the previous file or report folder stays intact.
# Needs root (mount); elsewhere it is skipped (exit 77, shown in ctest's summary).
source "$(dirname "$0")/lib.bash"
DISK=$TMP/disk
mkdir -p "$DISK"
if [[ $(id -u) -ne 0 ]] || ! mount -t tmpfs -o size=2m tmpfs "$DISK" 2>/dev/null; then
  echo "SKIPPED full_disk: mounting a tmpfs needs root"
  exit 77
fi
trap 'umount "$DISK" 2>/dev/null; rm -rf "$TMP"' EXIT
fill() { dd if=/dev/zero of="$DISK/fill" bs=4k >/dev/null 2>&1 || true; }   # until ENOSPC
unfill() { rm -f "$DISK/fill"; }
leftovers() { find "$DISK" -name '.*.tmp*' -o -name '.*.new*' -o -name '.*.old*' | grep -q . && fail "temporary files left: $(ls -a "$DISK")"; true; }

# 1. check --update: the baseline keeps its old bytes.
python3 - "$SRC/results/golden/h100_node_ring_allreduce.json" "$DISK/base.json" "$SRC" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["root"] = sys.argv[3]
d["command"] = ["collective", "--sizes", "1MiB"]
d["expected"] = {"rows": []}
json.dump(d, open(sys.argv[2], "w"), indent=2)
PY
cp "$DISK/base.json" "$TMP/base.before"
fill
expect_error 2 "--baseline" "$DISK/base.json" "No space left on device" -- check --baseline "$DISK/base.json" --update
cmp -s "$DISK/base.json" "$TMP/base.before" || fail "check --update on a full disk changed the baseline"
leftovers
unfill

# 2. validate --calibrate: the previous calibration file stays.
bash "$SRC/scripts/testbed.sh" topology 2 200mbit 9000 >"$TMP/tb2.json" || fail "testbed.sh topology failed"
cat >"$TMP/m.jsonl" <<JSON
{"kind":"collective","op":"allreduce","algorithm":"ring","ranks":2,"size":4194304,"time_us":170000,"topology":"tb2.json"}
{"kind":"collective","op":"allreduce","algorithm":"ps","ranks":2,"size":4194304,"time_us":340000,"topology":"tb2.json"}
JSON
echo '{"links": {"ethernet": {"efficiency": 1, "latency": "1us"}}}' >"$DISK/cal.json"
cp "$DISK/cal.json" "$TMP/cal.before"
fill
expect_error 2 "--calibrate" "$DISK/cal.json" "No space left on device" -- validate --measured "$TMP/m.jsonl" --calibrate "$DISK/cal.json"
cmp -s "$DISK/cal.json" "$TMP/cal.before" || fail "validate --calibrate on a full disk changed the file"
leftovers
unfill

# 3. ddp --trace and collective --trace: the previous trace stays.
echo '{"traceEvents": []}' >"$DISK/trace.json"
cp "$DISK/trace.json" "$TMP/trace.before"
fill
expect_error 2 "--trace" "No space left on device" -- ddp --workload resnet50 --trace "$DISK/trace.json"
expect_error 2 "--trace" "No space left on device" -- collective --sizes 1MiB --protocol simple --trace "$DISK/trace.json"
cmp -s "$DISK/trace.json" "$TMP/trace.before" || fail "--trace on a full disk changed the previous trace"
leftovers
unfill

# 4. plan --report: the previous report folder stays whole (no mix of old and new files).
cat >"$TMP/plan.json" <<JSON
{"name": "tiny", "candidates": [{"name": "node", "topology": "$SRC/topologies/dgx-h100.json", "world_sizes": [8],
  "price": {"per_gpu_hour": 2.5}}],
 "workloads": [{"file": "resnet50", "global_batch": 256}], "strategies": [{"name": "ddp", "kind": "ddp", "bucket_mb": [25]}]}
JSON
mkdir -p "$DISK/report" && echo "old report" >"$DISK/report/report.md" && echo "old" >"$DISK/report/plan.json"
fill
COLLSIM_PYTHON=/bin/false expect_error 2 "--report" "No space left on device" -- plan "$TMP/plan.json" --report "$DISK/report"
[[ $(cat "$DISK/report/report.md") == "old report" && $(cat "$DISK/report/plan.json") == old && ! -e $DISK/report/plan.csv ]] ||
  fail "plan --report on a full disk changed the previous report: $(ls "$DISK/report")"
leftovers
unfill
# With room, the new report replaces the old one whole.
COLLSIM_PYTHON=/bin/false "$COLLSIM" plan "$TMP/plan.json" --report "$DISK/report" >/dev/null 2>"$TMP/err" || fail "plan --report: $(cat "$TMP/err")"
[[ -s $DISK/report/plan.csv ]] && ! grep -q "old report" "$DISK/report/report.md" || fail "new report not in place: $(ls "$DISK/report")"
leftovers
# Standard output on a full disk: exit 2, not a silently short table.
fill
rc=0
"$COLLSIM" collective --sizes 1KiB:1MiB >"$DISK/table.txt" 2>"$TMP/err" || rc=$?
[[ $rc == 2 ]] && grep -q "standard output.*No space left on device" "$TMP/err" ||
  fail "collective > full disk exited $rc: $(cat "$TMP/err")"
rm -f "$DISK/table.txt"
unfill

# topo import-nccl -o: the previous topology stays.
echo '{"old": true}' >"$DISK/imported.json"
fill
expect_error 2 "-o" "No space left on device" -- topo import-nccl "$SRC/tests/data/nccl-xml/dgx-a100.xml" -o "$DISK/imported.json"
[[ $(cat "$DISK/imported.json") == '{"old": true}' ]] || fail "import-nccl -o on a full disk changed the previous file"
leftovers
unfill

# collsim-exec --output appends records: on a full disk it exits 2 and the file keeps its
# earlier records whole (no half record at the end).
EXEC=$(dirname "$COLLSIM")/collsim-exec
# One earlier record of exactly one 4 KiB page, so that the next byte needs a page tmpfs has not got.
python3 -c 'import sys; sys.stdout.write("{\"kind\":\"collective\",\"earlier\":\"" + "x" * 4061 + "\"}\n")' >"$DISK/records.jsonl"
[[ $(stat -c %s "$DISK/records.jsonl") == 4096 ]] || fail "the earlier record is not 4096 bytes"
cp "$DISK/records.jsonl" "$TMP/records.before"
fill
rc=0
"$EXEC" --local 2 --sizes 256KiB --iters 2 --output "$DISK/records.jsonl" >/dev/null 2>"$TMP/err" || rc=$?
[[ $rc == 2 ]] && grep -q -- "--output.*No space left on device" "$TMP/err" ||
  fail "collsim-exec --output on a full disk exited $rc: $(cat "$TMP/err")"
cmp -s "$DISK/records.jsonl" "$TMP/records.before" || fail "collsim-exec --output left a partial record: $(tail -c 200 "$DISK/records.jsonl")"
unfill
echo "full_disk: ok"
