# The textbook comparison (scripts/textbook_allreduce.sh): naive reduce-and-send-back,
# binary tree, ring and NCCL's choice on one 8 x A100 node, 1 KiB to 1 GiB. Checks the
# table against the alpha-beta formulas by hand and the answer to "which algorithm when".
source "$(dirname "$0")/lib.bash"
"$SRC/scripts/textbook_allreduce.sh" --out "$TMP" "$COLLSIM" >/dev/null || fail "textbook_allreduce.sh failed"
md=$TMP/allreduce-dgx-a100.md
[[ -s $md ]] || fail "no table written"
row() { grep "^| $1 |" "$md" || fail "no row for $1"; }
cell() { row "$1" | awk -F'|' -v c="$2" '{ gsub(/ /, "", $c); print $c }'; }
# 1 GiB: naive = 2 x 7 x 2^30 B through GPU 0's 300 GB/s = 50,107 us (+ 2 hops of latency);
# ring = 2 x 7/8 x 2^30 B over every GPU's 300 GB/s = 6,263.5 us (+ 14 hops).
awk -v t="$(cell '1 GiB' 3)" 'BEGIN { exit !(t > 50107 && t < 50107 * 1.001) }' || fail "naive 1 GiB: $(cell '1 GiB' 3) us"
awk -v t="$(cell '1 GiB' 7)" 'BEGIN { exit !(t > 6263.5 && t < 6263.5 * 1.002) }' || fail "ring 1 GiB: $(cell '1 GiB' 7) us"
# Latency decides at 1 KiB (naive: 2 hops), bandwidth at 1 GiB (ring).
[[ $(row '1 KiB' | awk -F'|' '{ gsub(/^ +| +$/, "", $12); print $12 }') == naive ]] || fail "1 KiB: $(row '1 KiB')"
[[ $(row '1 GiB' | awk -F'|' '{ gsub(/^ +| +$/, "", $12); print $12 }') == ring ]] || fail "1 GiB: $(row '1 GiB')"
grep -q "^Fastest textbook algorithm by size: naive from 1 KiB; .*ring from " "$md" || fail "no crossover line"
# NCCL's choice is a ring or tree under NCCL's protocols.
[[ $(row '1 GiB' | awk -F'|' '{ gsub(/ /, "", $11); print $11 }') == ring/simple ]] || fail "NCCL at 1 GiB: $(row '1 GiB')"
# Same build, same bytes.
"$SRC/scripts/textbook_allreduce.sh" --out "$TMP/again" "$COLLSIM" >/dev/null
cmp -s "$md" "$TMP/again/allreduce-dgx-a100.md" || fail "two runs differ"
echo ok
