# The published Megatron-LM ground truth (results/validation/llm) reproduces byte for byte from
# its script.
source "$(dirname "$0")/lib.bash"
python3 "$SRC/scripts/llm_truth.py" --collsim "$COLLSIM" --check >"$TMP/truth" 2>&1 ||
  fail "scripts/llm_truth.py --check: $(cat "$TMP/truth")"
grep -q "Median |error|" "$TMP/truth" || fail "no median in: $(cat "$TMP/truth")"
echo ok
