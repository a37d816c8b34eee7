# collsim collective with protocols and automatic choice: NCCL's 8 B ring latency on the
# built-in H100 node, the tree -> ring crossover on 32 hosts, and input errors.
source "$(dirname "$0")/lib.bash"

# 8.4 + 2 x 7 x 3.4 us = 56.0 us (plus 14 x 34 ps of data, invisible at 2 decimals).
out=$("$COLLSIM" collective --algo ring --protocol simple --sizes 8B)
grep -qE '^ +8 +2 +float +sum +-1 +56\.00 .* ring +simple +1$' <<<"$out" || fail "8 B ring/simple: $out"

cat >"$TMP/star32.json" <<'JSON'
{"name": "star32", "generator": {"kind": "star", "hosts": 32, "bandwidth": "100Gbps", "latency": "1us"}}
JSON
# Star hosts are not GPUs: "auto" would mean the ring under the ideal protocol there, so the
# candidates are named.
out=$("$COLLSIM" collective --topology "$TMP/star32.json" --algo ring,tree --protocol ll,ll128,simple --sizes 1KiB,1GiB --crossover)
grep -qE '^ +1024 .* tree +ll +1$' <<<"$out" || fail "small all-reduce should pick tree/ll: $out"
grep -qE '^ +1073741824 .* ring +simple +1$' <<<"$out" || fail "large all-reduce should pick ring/simple: $out"
grep -qE '^# crossover: tree/[a-z0-9]+ -> ring/simple at [0-9]+ B$' <<<"$out" || fail "no tree -> ring crossover: $out"

# Same input, same bytes.
cmp <("$COLLSIM" collective --algo auto --protocol auto --sizes 1KiB:16MiB --factor 16 --crossover --format json) \
    <("$COLLSIM" collective --algo auto --protocol auto --sizes 1KiB:16MiB --factor 16 --crossover --format json) \
  || fail "collective output is not deterministic"

# Every op runs; JSON carries the protocol and channels.
for op in allreduce reducescatter allgather broadcast reduce alltoall; do
  "$COLLSIM" collective --op "$op" --algo auto --protocol auto --sizes 1MiB --format json >"$TMP/c.json" || fail "$op"
  python3 -c "import json; r=json.load(open('$TMP/c.json'))['rows'][0]; assert r['protocol'] in ('ll','ll128','simple') and r['channels']>=1" \
    || fail "$op json: $(cat "$TMP/c.json")"
done

# A calibration file overrides the model: Simple ring step latency on NVLink 1 us:
# 8.4 + 14 x 1 = 22.4 us.
cat >"$TMP/cal.json" <<'JSON'
{"step_latency": {"nvlink": {"ring": {"simple": "1us"}}}}
JSON
"$COLLSIM" collective --algo ring --protocol simple --sizes 8B --calibration "$TMP/cal.json" | grep -qE ' 22\.40 ' || fail "calibration"

echo '{"efficiency": {"simple": 1.5}}' >"$TMP/bad1.json"
expect_error 2 "bad1.json" "/efficiency/simple" -- collective --protocol simple --sizes 8B --calibration "$TMP/bad1.json"
echo '{"step_latency": {"nvlink": {"ring": {"simple": "3"}}}}' >"$TMP/bad2.json"
expect_error 2 "/step_latency/nvlink/ring/simple" -- collective --calibration "$TMP/bad2.json" --sizes 8B
echo '{"chanels": 4}' >"$TMP/bad3.json"
expect_error 2 "chanels" -- collective --calibration "$TMP/bad3.json" --sizes 8B
expect_error 2 "--protocol" "\"fast\"" -- collective --protocol fast --sizes 8B
expect_error 2 "--algo" "\"bogus\"" -- collective --algo ring,bogus --sizes 8B
expect_error 2 "--algo" "nvls needs" -- collective --topology "$TMP/star32.json" --algo nvls --protocol simple --sizes 8B
expect_error 2 "--algo" "implements alltoall" -- collective --op alltoall --algo ring --sizes 8B
expect_error 2 "--channels" -- collective --channels 65 --sizes 8B
expect_error 2 "--hosts" -- collective --hosts 9 --sizes 8B
exit 0
