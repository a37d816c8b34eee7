# The published Megatron-LM ground truth (results/validation/llm) reproduces byte for byte from
# its scripts: the per-GPU TFLOP/s of each published run, and where the planner ranks each
# published layout.
source "$(dirname "$0")/lib.bash"
python3 "$SRC/scripts/llm_truth.py" --collsim "$COLLSIM" --check >"$TMP/truth" 2>&1 ||
  fail "scripts/llm_truth.py --check: $(cat "$TMP/truth")"
grep -q "Median |error|" "$TMP/truth" || fail "no median in: $(cat "$TMP/truth")"
python3 "$SRC/scripts/llm_layout_rank.py" --collsim "$COLLSIM" --check >"$TMP/rank" 2>&1 ||
  fail "scripts/llm_layout_rank.py --check: $(cat "$TMP/rank")"
echo ok
