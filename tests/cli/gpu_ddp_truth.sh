# The published-GPU ground truth (results/validation/gpu-ddp) reproduces byte for byte from its
# script, and --compute-precision sets the precision of the layers' FLOPs.
source "$(dirname "$0")/lib.bash"
python3 "$SRC/scripts/gpu_ddp_truth.py" --collsim "$COLLSIM" --check >"$TMP/truth" 2>&1 ||
  fail "scripts/gpu_ddp_truth.py --check: $(cat "$TMP/truth")"
grep -q "Median |error|" "$TMP/truth" || fail "no median in: $(cat "$TMP/truth")"

# V100: fp16 tensor cores 125 TFLOP/s, fp32 (and bf16, which V100 lacks) 15.7: forward
# compute 125 / 15.7 = 7.96x shorter with fp16.
fwd() { "$COLLSIM" ddp --topology dgx1-v100 --workload resnet50 --format json "$@" |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["forward_ms"])'; }
bf16=$(fwd) fp16=$(fwd --compute-precision fp16) fp32=$(fwd --compute-precision fp32)
python3 - "$bf16" "$fp16" "$fp32" <<'PY' || fail "forward ms bf16 $bf16, fp16 $fp16, fp32 $fp32"
import sys
bf16, fp16, fp32 = map(float, sys.argv[1:])
assert bf16 == fp32, (bf16, fp32)
assert abs(fp32 / fp16 - 125 / 15.7) < 0.01, fp32 / fp16
PY
expect_error 2 "--compute-precision" "fp8" -- ddp --topology dgx1-v100 --workload resnet50 --compute-precision fp8
expect_error 2 "--compute-precision" -- sweep --topology dgx1-v100 --workload resnet50 --compute-precision half
echo ok
