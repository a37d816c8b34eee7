# collsim schedule: every algorithm's schedule verifies from the command line; bad input
# exits 2 with a message naming the flag.
source "$(dirname "$0")/lib.bash"

for algo in ring tree bintree ps ps_sharded rhd rd direct nvls sharp collnet_direct collnet_chain; do
  out=$("$COLLSIM" schedule --op allreduce --algo "$algo" --ranks 13 --verify) || fail "$algo schedule failed: $out"
  grep -q "# verification: ok" <<<"$out" || fail "$algo did not verify: $out"
done
for op in reducescatter allgather broadcast reduce; do
  "$COLLSIM" schedule --op "$op" --algo ring --ranks 7 --root 3 --channels 2 --slice 16B --verify | grep -q "verification: ok" \
    || fail "ring $op did not verify"
done
"$COLLSIM" schedule --op alltoall --algo direct --ranks 9 --verify | grep -q "verification: ok" || fail "alltoall"
# hier_ring on 3 hosts x 4 ranks: 3 + 2 x 2 + 3 = 10 steps; every rank sends
# 2(g-1)/g S + 2(H-1)/(gH) S = 1.5 S + S/3 of S = 12 KiB -> 22528 B.
out=$("$COLLSIM" schedule --algo hier_ring --ranks 12 --hosts 3 --size 12KiB --verify)
grep -q "# steps 10 " <<<"$out" || fail "hier_ring steps: $out"
[[ $(grep -cE '^ +[0-9]+ +22528 +22528$' <<<"$out") == 12 ]] || fail "hier_ring bytes per rank: $out"
# JSON with the transfer list parses and names the verification.
"$COLLSIM" schedule --algo ring --ranks 4 --size 64B --list --verify --format json >"$TMP/s.json"
python3 -c "import json,sys; d=json.load(open('$TMP/s.json')); assert d['verification']['ok'] and d['steps']==6 and len(d['transfer_list'])==24" \
  || fail "json schedule: $(cat "$TMP/s.json")"
# Deterministic output.
cmp <("$COLLSIM" schedule --algo tree --ranks 9 --list) <("$COLLSIM" schedule --algo tree --ranks 9 --list) || fail "not deterministic"

expect_error 2 "--op" "\"gather\"" -- schedule --op gather --ranks 4
expect_error 2 "--algo" "\"chain\"" -- schedule --algo chain --ranks 4
expect_error 2 "--algo" "implements alltoall" -- schedule --op alltoall --algo ring --ranks 4
expect_error 2 "--ranks" "0" -- schedule --ranks 0
expect_error 2 "--hosts" "divides 10" -- schedule --algo hier_ring --ranks 10 --hosts 3
expect_error 2 "--hosts" "12" -- schedule --ranks 8 --hosts 12
expect_error 2 "--size" "unit" -- schedule --size 1000
expect_error 2 "--root" "a rank from 0 to 3" -- schedule --op broadcast --ranks 4 --root 4
exit 0
