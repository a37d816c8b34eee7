# NCCL's knobs by their names (--nccl-env "NCCL_ALGO=... NCCL_MIN_NCHANNELS=..." or one
# option each) on every command that runs a collective: forced choices behave as NCCL
# does, and every bad value exits 2 naming the option, the variable, the value and what
# was expected.
source "$(dirname "$0")/lib.bash"
RAIL=$SRC/topologies/4x-dgx-h100-rail-8x400g-ib.json
csv() { "$COLLSIM" collective --topology "$1" --sizes "$2" --format csv "${@:3}" | tail -n 1; }
field() { cut -d, -f"$1" <<<"$2"; }   # 11 algorithm, 12 protocol, 13 channels

# NCCL_ALGO / NCCL_PROTO force the choice, in NCCL's spelling and either way of giving it.
row=$(csv "$RAIL" 1MiB --nccl-env "NCCL_ALGO=Ring NCCL_PROTO=Simple")
[[ $(field 11 "$row") == ring && $(field 12 "$row") == simple ]] || fail "NCCL_ALGO=Ring NCCL_PROTO=Simple gave $row"
[[ $(csv "$RAIL" 1MiB --nccl-algo Ring --nccl-proto Simple) == "$row" ]] || fail "--nccl-algo/--nccl-proto differ from --nccl-env"
row=$(csv "$RAIL" 1GiB --nccl-env "NCCL_ALGO=^Ring,NVLSTree")
[[ $(field 11 "$row") == tree ]] || fail "NCCL_ALGO=^Ring,NVLSTree should leave the tree: $row"
row=$(csv "$RAIL" 1GiB --nccl-proto LL128)
[[ $(field 12 "$row") == ll128 ]] || fail "NCCL_PROTO=LL128: $row"

# Channels: the search finds 8 on this system (one per NIC); MAX keeps fewer, MIN copies more.
base=$(csv "$RAIL" 1GiB --nccl-algo Ring --nccl-proto Simple)
[[ $(field 13 "$base") == 8 ]] || fail "expected 8 searched channels: $base"
four=$(csv "$RAIL" 1GiB --nccl-algo Ring --nccl-proto Simple --max-channels 4)
[[ $(field 13 "$four") == 4 ]] || fail "NCCL_MAX_NCHANNELS=4: $four"
# Half the channels, each at its searched speed: the 1 GiB ring takes longer.
awk -v a="$(field 8 "$four")" -v b="$(field 8 "$base")" 'BEGIN { exit !(a > 1.5 * b) }' || fail "4 channels not slower: $four vs $base"
sixteen=$(csv "$RAIL" 1GiB --nccl-env "NCCL_ALGO=Ring NCCL_PROTO=Simple NCCL_MIN_NCHANNELS=16")
[[ $(field 13 "$sixteen") == 16 ]] || fail "NCCL_MIN_NCHANNELS=16: $sixteen"

# NVLS on one H100 node: NCCL's choice at 1 GiB; off, the ring or tree instead.
[[ $(field 11 "$(csv dgx-h100 1GiB)") == nvls ]] || fail "auto on dgx-h100 at 1 GiB should pick nvls"
off=$(csv dgx-h100 1GiB --nvls off)
[[ $(field 11 "$off") != nvls ]] || fail "--nvls off still ran nvls: $off"
[[ $(csv dgx-h100 1GiB --nccl-env NCCL_NVLS_ENABLE=0) == "$off" ]] || fail "NCCL_NVLS_ENABLE=0 differs from --nvls off"
expect_error 2 "nvls is off (NCCL_NVLS_ENABLE=0)" -- collective --topology dgx-h100 --sizes 1GiB --algo nvls --nvls off

# NVLSTree: forced as asked; among auto's candidates, NCCL's model picks it on 4 x DGX H100
# at 64 MiB (ring at 1 GiB); off with NVLS, or with 2 GPUs a host (NCCL needs more than 2).
row=$(csv "$RAIL" 1GiB --nccl-algo NVLSTree)
[[ $(field 11 "$row") == nvls_tree && $(field 12 "$row") == simple ]] || fail "NCCL_ALGO=NVLSTree: $row"
[[ $(field 11 "$(csv "$RAIL" 64MiB)") == nvls_tree ]] || fail "auto did not pick nvls_tree at 64 MiB: $(csv "$RAIL" 64MiB)"
[[ $(field 11 "$(csv "$RAIL" 64MiB --nvls off)") != nvls_tree ]] || fail "--nvls off still ran nvls_tree"
expect_error 2 "nvls_tree needs several hosts" -- collective --topology dgx-h100 --sizes 1GiB --nccl-algo NVLSTree
expect_error 2 "nvls_tree is off" -- collective --topology "$RAIL" --sizes 1GiB --nccl-env "NCCL_ALGO=NVLSTree NCCL_NVLS_ENABLE=0"
expect_error 2 "more than 2 GPUs per host" -- collective --topology dgx-h100 --ranks 2 --sizes 1GiB --algo nvls

# Cross-NIC: the graph says which rule it ran under.
"$COLLSIM" topo nccl "$RAIL" --cross-nic 0 --format json >"$TMP/g0.json"
python3 - "$TMP/g0.json" <<'EOF' || fail "crossNic 0: a channel left by another NIC"
import json, sys
g = json.load(open(sys.argv[1]))["ring"]
assert g["cross_nic"] == 0
assert all(c["exit_nic"] == c["nic"] for c in g["per_channel"])
EOF
"$COLLSIM" topo nccl "$RAIL" --cross-nic 1 >/dev/null || fail "topo nccl --cross-nic 1 failed"
"$COLLSIM" topo nccl "$RAIL" --max-channels 4 | grep -q "^ring      simple          4 " || fail "topo nccl --max-channels 4: the tuning table runs 4 channels"
# NCCL_ALGO=CollNet adds CollNet's rows, which auto never picks; on one host it says why not.
out=$("$COLLSIM" topo nccl "$RAIL" --nccl-algo CollNet)
for a in ring tree collnet_direct collnet_chain; do
  grep -q "^$a  *simple  *[0-9]" <<<"$out" || fail "topo nccl --nccl-algo CollNet: no usable $a/simple row"
done
"$COLLSIM" topo nccl "$RAIL" | grep -q "^collnet" && fail "topo nccl without NCCL_ALGO lists CollNet rows"
"$COLLSIM" topo nccl "$RAIL" --nccl-algo CollNetChain --format json | python3 -c '
import json, sys
algos = {r["algorithm"] for r in json.load(sys.stdin)["tuning"]["rows"]}
assert "collnet_chain" in algos and "collnet_direct" not in algos, algos
' || fail "topo nccl --nccl-algo CollNetChain --format json"
"$COLLSIM" topo nccl dgx-h100 --nccl-algo CollNet | grep -q "^# collnet_direct not listed: .*several hosts" \
  || fail "topo nccl dgx-h100 --nccl-algo CollNet does not say why CollNet is not listed"
"$COLLSIM" topo nccl "$RAIL" --nccl-algo PAT | grep -q "^# pat not listed: pat does not implement allreduce" \
  || fail "topo nccl --nccl-algo PAT does not say why PAT is not listed"

# Transports: without P2P the PCIe box's switch neighbours talk through the CPU (SHM),
# which halves the ring of its first socket's 4 GPUs (20 -> 10 GB/s; the whole box's ring
# is held to NCCL's 10 GB/s between its Xeon sockets either way); the graph and its JSON
# say which pairs, and NCCL's default level on this Intel host (PXB).
"$COLLSIM" topo nccl pcie-8gpu --nccl-env NCCL_P2P_DISABLE=1 | grep -q "SHM (through the receiving GPU's CPU) for 56 of 56" \
  || fail "topo nccl with NCCL_P2P_DISABLE=1 does not list 56 SHM pairs"
"$COLLSIM" topo nccl pcie-8gpu --nccl-env NCCL_P2P_LEVEL=PIX --format json >"$TMP/t.json"
python3 - "$TMP/t.json" <<'EOF' || fail "topo nccl --format json transports"
import json, sys
t = json.load(open(sys.argv[1]))["transports"]
assert (t["p2p_level"], t["gdr_level"], len(t["shm_pairs"])) == ("PIX", "PXB", 48), t
assert [0, 1] not in t["shm_pairs"] and [0, 2] in t["shm_pairs"], t["shm_pairs"]
EOF
"$COLLSIM" topo nccl pcie-8gpu --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["host_cpu"] == "intel-skylake" and d["transports"]["p2p_level"] == "PXB", (d["host_cpu"], d["transports"])
' || fail "topo nccl pcie-8gpu: host CPU and default P2P level"
p2p=$(csv pcie-8gpu 1GiB --ranks 4 --nccl-algo Ring --nccl-proto Simple)
shm=$(csv pcie-8gpu 1GiB --ranks 4 --nccl-algo Ring --nccl-proto Simple --nccl-env NCCL_P2P_DISABLE=1)
awk -v a="$(field 8 "$shm")" -v b="$(field 8 "$p2p")" 'BEGIN { exit !(a > 1.9 * b) }' || fail "SHM ring not slower: $shm vs $p2p"

# The same knobs on ddp, sweep and validate.
"$COLLSIM" ddp --workload resnet50 --topology "$RAIL" --nccl-env "NCCL_ALGO=Ring NCCL_PROTO=Simple" --format json >"$TMP/ddp.json"
python3 - "$TMP/ddp.json" <<'EOF' || fail "ddp with NCCL_ALGO=Ring NCCL_PROTO=Simple"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["algorithm"] == "ring/simple", d["algorithm"]
assert all(b["choice"] == "ring/simple" for b in d["buckets"]), [b["choice"] for b in d["buckets"]]
EOF
"$COLLSIM" sweep --workload resnet50 --topology "$RAIL" --bucket-mb 5,25 --nccl-algo Tree --format csv >/dev/null \
  || fail "sweep --nccl-algo Tree failed"
LOG=$SRC/tests/data/nccl-tests/dev/h100x8_2nodes_hgx_xe9680_8x400g_ib_allreduce_nccltests309_a.txt
TOPO=$SRC/tests/data/nccl-tests/dev/topologies/h100x8_2nodes_hgx_xe9680_8x400g_ib_allreduce_nccltests309_a.json
# (The log ran NCCL's own choice, so forced ring/simple rows may miss: exit 1 is fine.)
rc=0
"$COLLSIM" validate --measured "$LOG" --topology "$TOPO" --nccl-env "NCCL_ALGO=Ring NCCL_PROTO=Simple" \
  --tolerance 1000% --median-tolerance 1000% --format json >"$TMP/v.json" 2>"$TMP/v.err" || rc=$?
[[ $rc == 0 || $rc == 1 ]] || fail "validate with NCCL knobs exited $rc: $(cat "$TMP/v.err")"
python3 - "$TMP/v.json" <<'EOF' || fail "validate did not run ring/simple"
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
assert rows and all(" ring/simple" in r["case"] for r in rows), {r["case"] for r in rows}
EOF

# Plan files: "nccl_env" per candidate (NCCL_ALGO alone means NCCL's protocols).
plan() {  # plan FILE CANDIDATE_EXTRA
  cat >"$1" <<JSON
{"name": "t",
 "candidates": [{"name": "c", "topology": {"generator": {"kind": "cluster", "server": {"kind": "dgx_h100"},
                 "fabric": {"kind": "star", "link_kind": "ib", "nic_bandwidth": "400Gbps"}}},
                 "world_sizes": [16], "price": {"per_gpu_hour": 2.0} $2}],
 "workloads": [{"file": "$SRC/workloads/resnet50.json", "global_batch": 256}],
 "strategies": [{"name": "d", "kind": "ddp"}]}
JSON
}
plan "$TMP/p.json" ', "nccl_env": "NCCL_ALGO=Tree NCCL_MAX_NCHANNELS=4"'
"$COLLSIM" plan "$TMP/p.json" --format json >"$TMP/p.out.json" || fail "plan with nccl_env failed"
python3 - "$TMP/p.out.json" <<'PY' || fail "plan did not record its NCCL knobs"
import json, sys
c = json.load(open(sys.argv[1]))["candidates"][0]
assert (c["algorithm"], c["protocol"], c["nccl_env"]) == ("tree", "auto", "NCCL_ALGO=Tree NCCL_MAX_NCHANNELS=4"), c
PY
plan "$TMP/p1.json" ', "nccl_env": "NCCL_FOO=1"'
expect_error 2 "$TMP/p1.json" "/candidates/0/nccl_env" "NCCL_FOO" -- plan "$TMP/p1.json"
plan "$TMP/p2.json" ', "nccl_env": "NCCL_ALGO=Ring", "algorithm": "tree"'
expect_error 2 "/candidates/0/algorithm" "beside NCCL_ALGO" -- plan "$TMP/p2.json"

# CollNet (NCCL_COLLNET_ENABLE=1 with a SHARP plugin): Direct on the rail cluster's InfiniBand,
# past the ring at 1 GiB (NVLink, not the NICs, bounds it); Chain when named; refused on RoCE.
row=$(csv "$RAIL" 1GiB --nccl-algo CollNet)
[[ $(field 11 "$row") == collnet_direct && $(field 12 "$row") == simple ]] || fail "NCCL_ALGO=CollNet: $row"
ring=$(csv "$RAIL" 1GiB --nccl-algo Ring --nccl-proto Simple)
awk -v a="$(field 10 "$row")" -v b="$(field 10 "$ring")" 'BEGIN { exit !(a > 1.2 * b) }' || fail "CollNet busbw not past the ring's: $row vs $ring"
[[ $(field 11 "$(csv "$RAIL" 64MiB --nccl-algo CollNetChain)") == collnet_chain ]] || fail "NCCL_ALGO=CollNetChain"
cat >"$TMP/roce.json" <<'JSON'
{"generator": {"kind": "cluster", "hosts": 2, "server": {"kind": "dgx_h100"},
 "fabric": {"kind": "star", "link_kind": "roce", "nic_bandwidth": "400Gbps"}}}
JSON
expect_error 2 "--algo" "collnet_direct cannot run on these hosts" "SHARP runs on InfiniBand" -- \
  collective --topology "$TMP/roce.json" --nccl-algo CollNet --sizes 1MiB
expect_error 2 "--algo" "collnet_direct needs ranks on several hosts" -- collective --topology dgx-h100 --nccl-algo CollNet --sizes 1MiB

# Bad input: exit 2, naming option, variable, value and what was expected.
C=(collective --topology "$RAIL" --sizes 1MiB)
expect_error 2 "--nccl-env" "NCCL_FOO" "one of NCCL_ALGO" -- "${C[@]}" --nccl-env "NCCL_FOO=1"
expect_error 2 "--nccl-env" "NAME=VALUE" -- "${C[@]}" --nccl-env "Ring"
expect_error 2 "--algo" "\"pat\"" "implements allreduce" -- "${C[@]}" --nccl-env "NCCL_ALGO=PAT"
expect_error 2 "\"pat\"" "one rank per host" -- collective --topology "$RAIL" --op allgather --sizes 1MiB --nccl-env "NCCL_ALGO=PAT"
expect_error 2 "NCCL_ALGO" "allreduce:tree" "per-collective" -- "${C[@]}" --nccl-env "NCCL_ALGO=allreduce:tree"
expect_error 2 "--nccl-algo" "NCCL_ALGO" "\"Rign\"" "unknown" -- "${C[@]}" --nccl-algo Rign
expect_error 2 "--nccl-proto" "NCCL_PROTO" "\"LL64\"" -- "${C[@]}" --nccl-proto LL64
expect_error 2 "NCCL_MIN_NCHANNELS" "\"99\"" "0 to 64" -- "${C[@]}" --nccl-env NCCL_MIN_NCHANNELS=99
expect_error 2 "NCCL_MAX_NCHANNELS" "\"0\"" "1 to 64" -- "${C[@]}" --nccl-env NCCL_MAX_NCHANNELS=0
expect_error 2 "NCCL_NVLS_ENABLE" "\"yes\"" -- "${C[@]}" --nccl-env NCCL_NVLS_ENABLE=yes
expect_error 2 "NCCL_CROSS_NIC" "\"3\"" -- "${C[@]}" --nccl-env NCCL_CROSS_NIC=3
expect_error 2 "NCCL_ALGO" "each variable once" -- "${C[@]}" --nccl-env "NCCL_ALGO=Ring NCCL_ALGO=Tree"
expect_error 2 "NCCL_ALGO" "two different values" -- "${C[@]}" --nccl-env "NCCL_ALGO=Ring" --nccl-algo Tree
expect_error 2 "--algo" "auto beside NCCL_ALGO=ring" -- "${C[@]}" --algo tree --nccl-algo Ring
expect_error 2 "--protocol" "auto beside NCCL_PROTO=simple" -- "${C[@]}" --protocol ll --nccl-proto Simple
expect_error 2 "--min-channels" "65" "0 to 64" -- "${C[@]}" --min-channels 65
expect_error 2 "--max-channels" "0" "1 to 64" -- "${C[@]}" --max-channels 0
expect_error 2 "--nvls" "\"maybe\"" "on or off" -- "${C[@]}" --nvls maybe
expect_error 2 "--cross-nic" "5" -- "${C[@]}" --cross-nic 5
expect_error 2 "NCCL_P2P_DISABLE" "\"yes\"" "0 or 1" -- "${C[@]}" --nccl-env NCCL_P2P_DISABLE=yes
expect_error 2 "NCCL_P2P_LEVEL" "\"FAR\"" "a path type: LOC, NVL, PIX" -- "${C[@]}" --nccl-env NCCL_P2P_LEVEL=FAR
expect_error 2 "NCCL_NET_GDR_LEVEL" "\"NVL\"" "a path type: LOC, PIX" -- "${C[@]}" --nccl-env NCCL_NET_GDR_LEVEL=NVL
expect_error 2 "NCCL_ALGO" "\"Rign\"" -- ddp --workload resnet50 --topology "$RAIL" --nccl-algo Rign
expect_error 2 "NCCL_PROTO" -- validate --measured "$LOG" --topology "$TOPO" --nccl-env NCCL_PROTO=Fast
expect_error 2 "NCCL_MAX_NCHANNELS" -- topo nccl "$RAIL" --nccl-env NCCL_MAX_NCHANNELS=70
# validate runs each nccl-tests row as its log's run was launched: the knobs collsim models
# among the log's "NCCL INFO NAME set by environment to VALUE" lines, the command's over them.
ENVLOG=$SRC/tests/data/nccl-tests/constructed_nccl_info_env_allreduce.txt
V=(validate --measured "$ENVLOG" --topology "$SRC/topologies/dgx-a100.json" --tolerance 1000% --format csv)
out=$("$COLLSIM" "${V[@]}")
grep -q "tree/.*as the log's run: NCCL_ALGO=Tree NCCL_MAX_NCHANNELS=4" <<<"$out" || fail "log's knobs not applied: $out"
grep -q "NCCL_IB_HCA\|NCCL_SOCKET_IFNAME" <<<"$out" && fail "knobs collsim does not model listed as applied: $out"
out=$("$COLLSIM" "${V[@]}" --nccl-algo Ring --max-channels 2)
grep -q "ring/" <<<"$out" || fail "--nccl-algo Ring should replace the log's NCCL_ALGO: $out"
grep -q "as the log's run" <<<"$out" && fail "the command replaced every log knob, yet a note says otherwise: $out"
sed '23s/to 4\./to 99./' "$ENVLOG" >"$TMP/all_reduce.txt"
expect_error 2 "$TMP/all_reduce.txt line 23" "NCCL_MAX_NCHANNELS" "\"99\"" "1 to 64" -- \
  validate --measured "$TMP/all_reduce.txt" --topology "$SRC/topologies/dgx-a100.json"
sed '24s/to 4\./to 8./' "$ENVLOG" >"$TMP/all_reduce.txt"
expect_error 2 "$TMP/all_reduce.txt line 24" "NCCL_MAX_NCHANNELS" "one value on every rank" -- \
  validate --measured "$TMP/all_reduce.txt" --topology "$SRC/topologies/dgx-a100.json"
echo ok
