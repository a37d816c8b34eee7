# The collective table carries nccl-tests' columns and consistent figures.
source "$(dirname "$0")/lib.bash"
# The default is NCCL's choice (auto/auto): on the built-in H100 node at 1 GiB that is NVLS.
"$COLLSIM" collective --sizes 1GiB >"$TMP/t" || fail "collective failed"
grep -q "size .*count .*type .*redop .*root .*time .*algbw .*busbw .*algorithm" "$TMP/t" || fail "header: $(cat "$TMP/t")"
row=$(grep -v '^#' "$TMP/t")
read -r size count type redop root time algbw busbw algo protocol channels <<<"$row"
[[ $size == 1073741824 && $count == 268435456 && $type == float && $redop == sum && $root == -1 && $algo == nvls && $protocol == simple ]] \
  || fail "row fields: $row"
# algbw = size / time (GB/s, 1e9) and busbw = algbw x 2(N-1)/N with N = 8, to the printed precision.
awk -v s="$size" -v t="$time" -v a="$algbw" -v b="$busbw" 'BEGIN {
  ea = s / (t * 1e-6) / 1e9; eb = ea * 2 * 7 / 8;
  if ((ea - a) > 0.01 || (a - ea) > 0.01 || (eb - b) > 0.01 || (b - eb) > 0.01) exit 1 }' \
  || fail "algbw/busbw inconsistent with time: $row"
# JSON carries the same fields.
"$COLLSIM" collective --sizes 1GiB --format json >"$TMP/j" || fail "json failed"
for key in size_bytes count type redop root time_us algbw_gbps busbw_gbps algorithm; do
  grep -q "\"$key\"" "$TMP/j" || fail "json lacks $key"
done
echo "collective_table: ok"
