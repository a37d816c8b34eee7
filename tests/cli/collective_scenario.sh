# collsim collective --scenario (issue 20, link and NIC events): one of 8 NICs of a host of
# the 4 x DGX H100 rail cluster fails mid-all-reduce and the collective finishes on the
# other paths, reported against the healthy run; failing every NIC of the host ends with an
# error naming the host (exit 2, no hang); a link degraded to half from the start doubles
# the bandwidth part exactly; every scenario field's bad input exits 2 naming file, pointer,
# value and what was expected.
source "$(dirname "$0")/lib.bash"
rail=(collective --topology "$SRC/topologies/4x-dgx-h100-rail-8x400g-ib.json" --sizes 1GiB)
"$COLLSIM" "${rail[@]}" --scenario "$SRC/examples/scenarios/dgx-h100-nic-failure.json" --format json >"$TMP/nic.json" 2>"$TMP/err" ||
  fail "one NIC failed: $(cat "$TMP/err")"
python3 - "$TMP/nic.json" <<'PY' || fail "the NIC failure does not add up: $(head -c 600 "$TMP/nic.json")"
import json, sys
d = json.load(open(sys.argv[1]))
(row,), (healthy,) = d["rows"], d["healthy_rows"]
assert d["scenario"].endswith("dgx-h100-nic-failure.json")
assert (row["algorithm"], row["protocol"]) == (healthy["algorithm"], healthy["protocol"])
# Two channels now share NIC 2 of host 0: slower than healthy, never twice the whole time.
assert healthy["time_ps"] < row["time_ps"] < 2 * healthy["time_ps"], (row["time_ps"], healthy["time_ps"])
PY
"$COLLSIM" "${rail[@]}" --scenario "$SRC/examples/scenarios/dgx-h100-nic-failure.json" >"$TMP/nic.txt" 2>&1 || fail "table"
grep -q "^# scenario .*dgx-h100-nic-failure.json: 1073741824 B takes .* us against .* us healthy (+" "$TMP/nic.txt" ||
  fail "no scenario line: $(tail -2 "$TMP/nic.txt")"

python3 -c "import json; print(json.dumps({'events': [{'at': '100us', 'action': 'fail', 'node': f'h0/nic{i}'} for i in range(8)]}))" >"$TMP/all.json"
timeout 60 "$COLLSIM" "${rail[@]}" --scenario "$TMP/all.json" >"$TMP/out" 2>"$TMP/err"; rc=$?
[[ $rc == 2 ]] || fail "every NIC of h0 failed: exit $rc, expected 2: $(cat "$TMP/err")"
grep -q "all.json: /events/7: .*host h0/host has no working link to another host" "$TMP/err" || fail "no host named: $(cat "$TMP/err")"

# Two ranks on a star, ring all-reduce under the ideal protocol: each transfer is latency +
# bytes / rate. Halving host 0's links from the start doubles every transfer's bandwidth
# part, so 1 GiB then takes exactly as long as 2 GiB on the healthy star.
cat >"$TMP/star.json" <<'JSON'
{"name": "star-2", "generator": {"kind": "star", "hosts": 2, "bandwidth": "100Gbps", "latency": "1us"}}
JSON
cat >"$TMP/half.json" <<'JSON'
{"events": [{"at": "0s", "action": "degrade", "node": "host0", "bandwidth": "50Gbps"}]}
JSON
star=(collective --topology "$TMP/star.json" --algo ring --protocol ideal --format json)
"$COLLSIM" "${star[@]}" --sizes 1GiB --scenario "$TMP/half.json" >"$TMP/half1.json" 2>"$TMP/err" || fail "degrade: $(cat "$TMP/err")"
"$COLLSIM" "${star[@]}" --sizes 2GiB >"$TMP/healthy2.json" 2>"$TMP/err" || fail "healthy 2GiB: $(cat "$TMP/err")"
python3 - "$TMP/half1.json" "$TMP/healthy2.json" <<'PY' || fail "a half-rate link does not double the bandwidth part"
import json, sys
half, two = (json.load(open(p))["rows"][0]["time_ps"] for p in sys.argv[1:])
assert half == two, (half, two)
PY

scn="$TMP/s.json"
bad() {  # bad JSON SUBSTRING...: the scenario JSON must be refused with exit 2 and each substring
  local json=$1; shift
  printf "%s\n" "$json" >"$scn"
  expect_error 2 "$scn" "$@" -- "${rail[@]}" --scenario "$scn"
}
bad '{"events": []}' "/events" "1 to 100000 events"
bad '{"events": {}}' "/events"
bad '{"evts": []}' "/events"
bad '{"events": [{"at": "1us", "action": "fail", "node": "h0/nic3"}], "extra": 1}' "/extra"
bad '[1]' "object"
bad '{"events": [{"action": "fail", "node": "h0/nic3"}]}' "/events/0/at"
bad '{"events": [{"at": "soon", "action": "fail", "node": "h0/nic3"}]}' "/events/0/at" '"soon"'
bad '{"events": [{"at": "2h", "action": "fail", "node": "h0/nic3"}]}' "/events/0/at"
bad '{"events": [{"at": "1us", "node": "h0/nic3"}]}' "/events/0/action"
bad '{"events": [{"at": "1us", "action": "explode", "node": "h0/nic3"}]}' "/events/0/action" "explode" "degrade, fail, restore"
bad '{"events": [{"at": "1us", "action": "fail", "node": "h9/nic3"}]}' "/events/0/node" "h9/nic3" "a node id"
bad '{"events": [{"at": "1us", "action": "fail"}]}' "/events/0/node" 'exactly one of "node" or "link"'
bad '{"events": [{"at": "1us", "action": "fail", "node": "h0/nic3", "link": ["h0/nic3", "h0/pcie1"]}]}' "/events/0/link" 'exactly one of'
bad '{"events": [{"at": "1us", "action": "fail", "link": "h0/nic3"}]}' "/events/0/link" "two node ids"
bad '{"events": [{"at": "1us", "action": "fail", "link": ["h0/nic3", "nowhere"]}]}' "/events/0/link" "nowhere"
bad '{"events": [{"at": "1us", "action": "fail", "link": ["h0/gpu0", "h1/gpu0"]}]}' "/events/0/link" "two nodes joined by a link"
bad '{"events": [{"at": "1us", "action": "degrade", "node": "h0/nic3"}]}' "/events/0/bandwidth"
bad '{"events": [{"at": "1us", "action": "degrade", "node": "h0/nic3", "bandwidth": "fast"}]}' "/events/0/bandwidth" '"fast"'
bad '{"events": [{"at": "1us", "action": "fail", "node": "h0/nic3", "bandwidth": "1Gbps"}]}' "/events/0/bandwidth" 'only "degrade"'
bad '{"events": [{"at": "1us", "action": "fail", "node": "h0/nic3", "when": 1}]}' "/events/0/when"
bad '{"events": [{"at": "1us", "action": "fail", "node": "h0/nic3"},' "line"
expect_error 2 "none.json" "readable" -- "${rail[@]}" --scenario "$TMP/none.json"
expect_error 2 "--crossover" "--scenario" -- "${rail[@]}" --scenario "$SRC/examples/scenarios/dgx-h100-nic-failure.json" --crossover
exit 0
