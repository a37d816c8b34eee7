# collsim topo show|validate|dot: figures of a shipped server, every error of a bad file
# with exit 2, and Graphviz output that dot accepts.
source "$(dirname "$0")/lib.bash"
T=$SRC/topologies

# show: DGX H100 = 8 H100, 8 NICs, 18 NVLinks x 25 GB/s = 450 GB/s per GPU per direction,
# bisection 4 x 450 + 2 x 63.0154 (PCIe Gen5 x16 below the socket link) = 1926.03 GB/s.
"$COLLSIM" topo show "$T/dgx-h100.json" >"$TMP/show" || fail "topo show exited $?"
grep -q '^gpus       8: 8 x H100 (hopper)$' "$TMP/show" || fail "gpus line: $(cat "$TMP/show")"
grep -q '^nics/host  8$' "$TMP/show" || fail "nics line: $(cat "$TMP/show")"
grep -q 'nvswitch   16        288      450 GB/s' "$TMP/show" || fail "nvswitch links: $(cat "$TMP/show")"
grep -q 'nvlink 450 GB/s, pcie 63.0154 GB/s' "$TMP/show" || fail "injection: $(cat "$TMP/show")"
grep -q '^bisection  1926.03 GB/s' "$TMP/show" || fail "bisection: $(cat "$TMP/show")"
# Deterministic: same input, same bytes.
"$COLLSIM" topo show "$T/dgx-h100.json" | cmp -s - "$TMP/show" || fail "topo show output differs between runs"

# validate: every shipped file is valid.
for f in "$T"/*.json; do
  "$COLLSIM" topo validate "$f" >"$TMP/ok" || fail "topo validate $f exited $?: $(cat "$TMP/ok")"
  grep -q ': valid: ' "$TMP/ok" || fail "validate $f printed: $(cat "$TMP/ok")"
done

# validate: a file with three errors lists all three, then exits 2.
cat >"$TMP/bad.json" <<'JSON'
{"nodes": [{"id": "a", "kind": "gpu", "model": "K80"}, {"id": "s", "kind": "nvswitch"}],
 "links": [{"endpoints": ["a", "s"], "kind": "nvswitch", "bandwidth": "25", "latency": "1us", "mtu": 1500}]}
JSON
expect_error 2 "/nodes/0/model" "got \"K80\"" "/links/0/bandwidth" "/links/0/mtu" "3 errors" -- topo validate "$TMP/bad.json"
[[ $(grep -c 'collsim: error:' "$TMP/err") == 4 ]] || fail "expected 3 errors and a summary: $(cat "$TMP/err")"
# An unknown GPU model alone: exit 2; the message names the file, the JSON pointer, the
# value and every catalogued model (what was expected).
cat >"$TMP/gpu.json" <<'JSON'
{"nodes": [{"id": "a", "kind": "gpu", "model": "RTX 4090"}, {"id": "b", "kind": "gpu", "model": "Radeon VII"}],
 "links": [{"endpoints": ["a", "b"], "kind": "pcie", "bandwidth": "1GB/s", "lanes": 16, "latency": "1us"}]}
JSON
expect_error 2 "gpu.json: /nodes/1/model: got \"Radeon VII\", expected a GPU model, one of: V100, RTX 2080 Ti, A100, A100-40GB, A800, RTX 3090, RTX 4090, L4, L40S, H100, H800, H20, H200, B200, GB200, B300, RTX 5090" -- topo validate "$TMP/gpu.json"
[[ $(grep -c 'collsim: error:' "$TMP/err") == 1 ]] || fail "expected one error: $(cat "$TMP/err")"
# Any spelling of a catalogued model loads, shown in the catalogue's spelling.
sed 's/"Radeon VII"/"NVIDIA GeForce RTX 4090"/' "$TMP/gpu.json" >"$TMP/gpu_ok.json"
"$COLLSIM" topo show "$TMP/gpu_ok.json" >"$TMP/out" || fail "topo show of a GeForce spelling exited $?"
grep -q '2 x RTX 4090 (ampere)' "$TMP/out" || fail "topo show: $(cat "$TMP/out")"
# One error: just that error.
echo '{"generator": {"kind": "dgx_h100", "nics": -1}}' >"$TMP/one.json"
expect_error 2 "/generator/nics" "got -1" "an integer from 0 to 64" -- topo validate "$TMP/one.json"
expect_error 2 "does not exist" -- topo validate "$TMP/missing.json"
expect_error 2 "required" -- topo show
# The collective command reports a bad topology the same way.
expect_error 2 "/generator/nics" -- collective --topology "$TMP/one.json" --sizes 1MiB
# A NIC plugin latency that is neither a named transport nor a time: exit 2, with the
# names and the range it expected.
echo '{"generator": {"kind": "cluster", "hosts": 2, "server": {"kind": "dgx_a100"}, "fabric": {"kind": "star", "nic_bandwidth": "200Gbps", "net_latency": "efa"}}}' >"$TMP/net.json"
expect_error 2 "net.json: /generator/fabric/net_latency: got \"efa\", expected a transport (ib-verbs, socket, tcpxo, efa-p4d, efa-p5, efa-p5en, efa-p3dn) or a time up to 10 ms" -- collective --topology "$TMP/net.json" --sizes 1MiB
# Host CPUs: a server block's cpu and a cpu node's platform outside their lists, exit 2.
echo '{"generator": {"kind": "cluster", "hosts": 2, "server": {"kind": "dgx_a100", "cpu": "epyc-9004"}, "fabric": {"kind": "star", "nic_bandwidth": "200Gbps"}}}' >"$TMP/cpu.json"
expect_error 2 "cpu.json: /generator/server/cpu: got \"epyc-9004\", expected a host CPU, one of: xeon-e5-v4, xeon-cascade-lake" -- collective --topology "$TMP/cpu.json" --sizes 1MiB
sed 's/"kind": "cpu"/"kind": "cpu", "platform": "zen4"/' "$SRC/tests/data/nccl-tests/dev/topologies/rtx2080ti_x2_nvlink_bridge_allgather_oldformat.json" >"$TMP/platform.json"
expect_error 2 "platform.json: /nodes/1/platform: got \"zen4\", expected a CPU as NCCL classifies it, one of: intel-broadwell" -- topo validate "$TMP/platform.json"

# dot: Graphviz accepts it; the DGX-1 picture has 16 NVLink edges (the hybrid cube-mesh).
"$COLLSIM" topo dot "$T/dgx1-v100.json" >"$TMP/g.dot" || fail "topo dot exited $?"
[[ $(grep -c 'label="nvlink' "$TMP/g.dot") == 16 ]] || fail "expected 16 nvlink edges: $(grep -c nvlink "$TMP/g.dot")"
if command -v dot >/dev/null; then
  dot -Tsvg "$TMP/g.dot" >/dev/null || fail "dot rejected the output"
fi
exit 0
