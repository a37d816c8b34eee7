# scripts/export_workload.py on a user module (FLOPs and measured modes), then collsim ddp
# on the result. Skipped when /usr/bin/python3 has no torch.
source "$(dirname "$0")/lib.bash"
if ! /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  echo "SKIP: /usr/bin/python3 cannot import torch (apt-get install python3-torch)"
  exit 0
fi
/usr/bin/python3 "$SRC/scripts/export_workload.py" --module "$SRC/tests/data/tiny_model.py:make" --out "$TMP/f.json" 2>"$TMP/err" ||
  fail "export (flops) failed: $(cat "$TMP/err")"
grep -q "gradient-ready order from the layers equals the observed one" "$TMP/err" || fail "ready order check: $(cat "$TMP/err")"
# Linear(64,128) on a batch of 16: 2 x 16 x 128 x 64 + 16 x 128 bias adds = 264,192 FLOPs;
# its input needs no gradient, so backward = forward.
python3 - "$TMP/f.json" <<'PY' || fail "exported FLOPs workload is wrong"
import json, sys
w = json.load(open(sys.argv[1]))
assert [p["name"] for p in w["parameters"]] == ["0.weight", "0.bias", "1.weight", "1.bias", "3.weight", "3.bias"]
first = w["layers"][0]
assert first["name"] == "0" and first["forward_flops"] == 264192 and first["backward_flops"] == 264192, first
assert w["batch_per_gpu"] == 16
assert {b["name"] for b in w["buffers"]} == {"1.running_mean", "1.running_var", "1.num_batches_tracked"}
PY
/usr/bin/python3 "$SRC/scripts/export_workload.py" --module "$SRC/tests/data/tiny_model.py:make" --mode measure --iters 2 \
  --out "$TMP/m.json" 2>"$TMP/err" || fail "export (measure) failed: $(cat "$TMP/err")"
grep -q '"measured_on": "cpu"' "$TMP/m.json" || fail "measured workload lacks measured_on"
for w in f m; do
  "$COLLSIM" ddp --workload "$TMP/$w.json" --format json >"$TMP/$w.out" 2>/dev/null || fail "collsim ddp on the $w workload failed"
done
exit 0
