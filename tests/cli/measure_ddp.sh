# scripts/measure_ddp.py on loopback: two gloo ranks, a small MLP, two bucket caps; the
# records parse as harness input. Skips (77) when python3 cannot import torch.
source "$(dirname "$0")/lib.bash"
PY=/usr/bin/python3
$PY -c 'import torch' 2>/dev/null || { echo "SKIP: measure_ddp.py: python3 cannot import torch"; exit 77; }
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
args=(--init-method "tcp://127.0.0.1:$port" --world 2 --model mlp:256x256x1024x1024x64 --bucket-cap-mb 0.01,25 --warmup 2 --iters 2
      --profile-iters 1 --timeout 60)
$PY "$SRC/scripts/measure_ddp.py" --rank 1 "${args[@]}" 2>"$TMP/e1" &
$PY "$SRC/scripts/measure_ddp.py" --rank 0 "${args[@]}" --output "$TMP/d.jsonl" 2>"$TMP/e0" || fail "rank 0: $(cat "$TMP/e0")"
wait || fail "rank 1: $(cat "$TMP/e1")"
$PY - "$TMP/d.jsonl" <<'PY' || fail "records: $(cat "$TMP/d.jsonl")"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
assert [r["bucket_cap_mb"] for r in recs] == [0.01, 25.0], recs
# Layers 256->256, 256->1024, 1024->1024, 1024->64 with biases: 65792 + 263168 + 1049600
# + 65600 = 1444160 parameters = 5776640 bytes.
assert all(r["parameters"] == 1444160 and r["ranks"] == 2 and len(r["iteration_us"]) == 2 for r in recs)
# Rebuilt buckets follow gradient-ready order (last layer first). The first is capped at
# 1 MiB: it closes on the 4 MiB 1024x1024 weight. With 25 MB the rest (layers 0-1) is one
# more bucket; with 0.01 MB (10485 B) the 1 MiB 256x1024 weight closes one and layer 0
# needs at least one more.
sizes = [r["rebuilt_buckets"] for r in recs]
assert len(sizes[1]) == 2 and len(sizes[0]) >= 3, sizes
assert sum(sizes[0]) == sum(sizes[1]) == 5776640, sizes
assert [l["name"] for l in recs[0]["layers"]] == ["0", "1", "2", "3", "4", "5", "6"]
assert all(b["end_us"] >= b["start_us"] for r in recs for b in r["bucket_allreduce"])
PY
# Each record embeds its workload (parameters in DDP order, measured layer times, the
# measured SGD step) and the host's copy bandwidth, so validate predicts it with no other
# file. Loopback is not the 2-host test bed topology used here, so the errors are not the
# point (generous tolerances); that every row is predicted is.
$PY - "$TMP/d.jsonl" <<'PY' || fail "embedded workload: $(head -c 2000 "$TMP/d.jsonl")"
import json, sys
for r in map(json.loads, open(sys.argv[1])):
    w = r["workload"]
    assert w["measured_on"] == "cpu" and sum(p["numel"] for p in w["parameters"]) == 1444160, w["parameters"]
    assert [l["name"] for l in w["layers"]] == ["0", "2", "4", "6"], w["layers"]  # the Linear layers
    assert w["optimizer"]["time"].endswith("us") and r["memory_bandwidth_gbps"] > 0 and r["optimizer_us"] > 0
PY
bash "$SRC/scripts/testbed.sh" topology 2 500mbit 9000 >"$TMP/tb2.json" || fail "testbed.sh topology failed"
"$COLLSIM" validate --measured "$TMP/d.jsonl" --topology "$TMP/tb2.json" --tolerance 1000% --bucket-tolerance 1000% >"$TMP/v" 2>&1 ||
  fail "validate on DDP records: $(cat "$TMP/v")"
grep -q "ddp mlp:256x256x1024x1024x64 n=2" "$TMP/v" || fail "no DDP rows: $(cat "$TMP/v")"
grep -q "2 of 2 rows predicted" "$TMP/v" || fail "DDP rows not predicted: $(cat "$TMP/v")"
# A DDP prediction needs a topology: none given and none in the record -> exit 2.
expect_error 2 "topology" -- validate --measured "$TMP/d.jsonl"
# Bad input: exit 2 with a message.
rc=0; $PY "$SRC/scripts/measure_ddp.py" --rank 0 --world 1 --init-method tcp://127.0.0.1:1 --model mlp:x 2>"$TMP/bad" || rc=$?
[[ $rc == 2 ]] && grep -q "mlp" "$TMP/bad" || fail "bad model: rc $rc $(cat "$TMP/bad")"
echo "ok"
