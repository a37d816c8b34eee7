# Every bad-input rule of issue 2 through the CLI: exit code 2 and one message naming
# the file (or flag), the JSON pointer or field, the bad value and what was expected.
source "$(dirname "$0")/lib.bash"

good='{"nodes": [{"id": "g0", "kind": "gpu"}, {"id": "g1", "kind": "gpu"}, {"id": "sw", "kind": "nvswitch"}],
 "links": [{"endpoints": ["g0", "sw"], "kind": "nvswitch", "bandwidth": "450GB/s", "latency": "1us"},
           {"endpoints": ["g1", "sw"], "kind": "nvswitch", "bandwidth": "450GB/s", "latency": "1us"}]}'
write() { printf '%s\n' "$2" >"$TMP/$1"; }
write good.json "$good"
"$COLLSIM" collective --topology "$TMP/good.json" --sizes 1MiB >/dev/null || fail "good topology rejected"

# malformed JSON
write malformed.json '{"nodes": [,]}'
expect_error 2 "malformed.json" "line 1" "well-formed JSON" -- collective --topology "$TMP/malformed.json"
# a bandwidth without a unit
write nounit.json "${good/\"450GB\/s\"/\"450\"}"
expect_error 2 "nounit.json" "/links/0/bandwidth" '"450"' "bandwidth with a unit" -- collective --topology "$TMP/nounit.json"
# a negative latency
write neglat.json "${good/\"1us\"/\"-1us\"}"
expect_error 2 "neglat.json" "/links/0/latency" '"-1us"' "non-negative time" -- collective --topology "$TMP/neglat.json"
# a link to an unknown node
write unknown.json "$(sed 's/\["g1", "sw"\]/["g7", "sw"]/' <<<"$good")"
expect_error 2 "unknown.json" "/links/1/endpoints/0" '"g7"' "node listed in /nodes" -- collective --topology "$TMP/unknown.json"
# a missing field
write missing.json "${good/, \"latency\": \"1us\"/}"
expect_error 2 "missing.json" "/links/0/latency" "required" -- collective --topology "$TMP/missing.json"
# an unknown key
write extra.json "${good/\"kind\": \"gpu\"/\"kind\": \"gpu\", \"colour\": \"red\"}"
expect_error 2 "extra.json" "/nodes/0/colour" "unknown key" "only these keys" -- collective --topology "$TMP/extra.json"
# a GPU with no path to the others
write island.json '{"nodes": [{"id": "g0", "kind": "gpu"}, {"id": "g1", "kind": "gpu"}, {"id": "sw", "kind": "nvswitch"}],
 "links": [{"endpoints": ["g0", "sw"], "kind": "nvswitch", "bandwidth": "450GB/s", "latency": "1us"}]}'
expect_error 2 "island.json" "/nodes/0" "no path" '"g1"' "path of links" -- collective --topology "$TMP/island.json"
# an unknown algorithm
expect_error 2 "--algo" "\"butterfly\"" "ring, tree, bintree, ps" -- collective --algo butterfly
# --sizes that does not parse
expect_error 2 "--sizes" '"12 apples"' "a size" -- collective --sizes "12 apples"
expect_error 2 "--sizes" '"1MiB:1KiB"' "MIN <= MAX" -- collective --sizes 1MiB:1KiB
# an unreadable file
expect_error 2 "$TMP/nope.json" "readable file" -- collective --topology "$TMP/nope.json"
# hostile JSON: nesting 100,000 levels deep (no stack overflow), a number beyond double's
# range (not an internal error), a directory, and a file over the input size limit
python3 -c 'print("[" * 100000 + "]" * 100000)' >"$TMP/deep.json"
expect_error 2 "deep.json" "line 1, column 257" "nested at most 256 levels" -- collective --topology "$TMP/deep.json"
write huge.json '{"nodes": [], "links": [{"bandwidth": 1e400}]}'
expect_error 2 "huge.json" "number overflow" "range of a double" -- collective --topology "$TMP/huge.json"
mkdir -p "$TMP/adir"
expect_error 2 "adir" "a directory" "expected a file" -- collective --topology "$TMP/adir"
expect_error 2 "adir" "a directory" -- validate --measured "$TMP/adir"
COLLSIM_MAX_INPUT_BYTES=100 expect_error 2 "pcie-8gpu.json" "more than 100 bytes" "COLLSIM_MAX_INPUT_BYTES" -- collective --topology "$SRC/topologies/pcie-8gpu.json"
COLLSIM_MAX_INPUT_BYTES=many expect_error 2 "COLLSIM_MAX_INPUT_BYTES" '"many"' -- collective --topology "$SRC/topologies/pcie-8gpu.json"
# /dev/zero has no end: the limit stops it instead of the memory running out
COLLSIM_MAX_INPUT_BYTES=1000000 expect_error 2 "/dev/zero" "more than 1000000 bytes" -- collective --topology /dev/zero
# other flags
expect_error 2 "--format" '"xml"' "table, json, csv" -- collective --format xml
expect_error 2 "--ranks" "from 1 to 8" -- collective --ranks 9
expect_error 2 "--op" '"gossip"' "allreduce" -- collective --op gossip
expect_error 2 "--bogus" -- collective --bogus
expect_error 2 "unknown command \"colective\"" "expected one of: collective, " "topo" -- colective --sizes 1MiB
expect_error 2 "--slice" "\"0B\"" "at least 1 B" -- collective --slice 0B
expect_error 2 "--slice" "\"0B\"" "at least 1 B" -- schedule --algo ring --ranks 4 --slice 0B
# Arithmetic that cannot wrap (issue 16 part 5): quantities past their documented ranges,
# and in-range inputs whose product leaves the picosecond clock, are exit 2 naming the flag
# or field, never an internal error or a negative time.
expect_error 2 "--sizes" '"8000000TiB"' "at most 1024TiB" -- collective --topology star-16x100g --algo ring --sizes 8000000TiB
write slow.json "${good//450GB\/s/1Kbps}"
expect_error 2 "--sizes" "1TiB" "clock" -- collective --topology "$TMP/slow.json" --sizes 1TiB
expect_error 2 "--slice" "at most 1024TiB" -- schedule --algo ring --ranks 4 --slice 2048TiB
write latency.json "${good//1us/100000s}"
expect_error 2 "latency.json" "/links/0/latency" '"100000s"' "from 0 to 1s" -- collective --topology "$TMP/latency.json"
write slowbw.json "${good//450GB\/s/0.001bps}"
expect_error 2 "slowbw.json" "/links/0/bandwidth" '"0.001bps"' "from 1 bps" -- collective --topology "$TMP/slowbw.json"
layers() {  # layers N FORWARD_TIME: a workload of N layers of one parameter each
  python3 - "$1" "$2" <<'PY'
import json, sys
n, t = int(sys.argv[1]), sys.argv[2]
print(json.dumps({"name": "w", "measured_on": "cpu",
                  "parameters": [{"name": f"p{i}", "numel": 1000, "dtype": "float32"} for i in range(n)],
                  "layers": [{"name": f"l{i}", "params": [f"p{i}"], "forward_time": t, "backward_time": t} for i in range(n)]}))
PY
}
layers 2 9000000s >"$TMP/day_layer.json"
expect_error 2 "day_layer.json" "/layers/0/forward_time" '"9000000s"' "from 0 to 3600s" -- ddp --workload "$TMP/day_layer.json" --device H100
# 1500 layers of an hour each forward and backward: 125 days, past the clock's 106.
layers 1500 3600s >"$TMP/long_step.json"
expect_error 2 "simulated time past 2^63 ps" -- ddp --workload "$TMP/long_step.json" --device H100 --topology star-16x100g
expect_error 2 "--graph-walk" "from 0 to 3600s" -- ddp --workload resnet50 --device H100 --graph-walk 2h
# An algorithm the ranks cannot run names --algo (was an internal error, exit 1).
expect_error 2 "--algo" '"nvls_tree"' "can run on dgx-h100" "several hosts" -- ddp --workload bert-base --topology dgx-h100 --algo nvls_tree
expect_error 2 "--algo" '"collnet_direct"' "can run on dgx-h100" -- sweep --workload bert-base --topology dgx-h100 --algo collnet_direct
expect_error 2 "--graph-walk" "from 0 to 3600s" -- ddp --workload resnet50 --device H100 --graph-walk 7200s
# The simulator names the DdpOptions field ("hook"); the command line says the flag typed.
layers 2 1ms >"$TMP/no_shapes.json"
expect_error 2 "--hook: got powersgd" "parameters have shapes" -- ddp --workload "$TMP/no_shapes.json" --device H100 --hook powersgd:2
# a catalogued GPU whose source gives no peak for the workload's precision (resnet50: bf16)
expect_error 2 "RTX 5090: dense bf16 peak FLOP/s" "measured layer times" -- ddp --workload resnet50 --device "RTX 5090"
expect_error 2 "--device" '"K80"' "one of: V100, RTX 2080 Ti" -- ddp --workload resnet50 --device K80
# 65536 ranks of direct all-reduce: 8.6e9 transfers, refused before any is made.
expect_error 2 "direct allreduce on 65536 ranks" "8589803520 transfers" "COLLSIM_MAX_SCHEDULE_BYTES" -- schedule --algo direct --ranks 65536
expect_error 2 "ps_sharded allreduce on 65536 ranks" "COLLSIM_MAX_SCHEDULE_BYTES" -- schedule --algo ps_sharded --ranks 65536
COLLSIM_MAX_SCHEDULE_BYTES=1000 expect_error 2 "ring allreduce on 64 ranks" "more than" "COLLSIM_MAX_SCHEDULE_BYTES" -- schedule --algo ring --ranks 64
# The ring's full replay counts its transfers' dependencies in a byte each (its schedule is
# computed, not stored): 4,294,705,152 transfers are refused with the figure, not bad_alloc.
expect_error 2 "ring allreduce on 16384 ranks needs 4294705152 transfers" "GiB" "COLLSIM_MAX_SCHEDULE_BYTES" -- collective --topology h100-fat-tree-16384 --algo ring --exact --sizes 1GiB
# So does the hierarchical ring's (it counts its transfers first; it used to build 14 GB first).
expect_error 2 "hier_ring allreduce on 16384 ranks needs 536838144 transfers" "GiB" -- collective --topology h100-fat-tree-16384 --algo hier_ring --exact --sizes 1GiB
COLLSIM_MAX_SCHEDULE_BYTES=lots expect_error 2 "COLLSIM_MAX_SCHEDULE_BYTES" '"lots"' -- schedule --algo ring --ranks 4
# The tree's replay budget (past it the default path estimates the tree) is read when a tree
# is priced: a value that is not a positive whole number is named, not taken as 0.
COLLSIM_TREE_REPLAY_BUDGET=0 expect_error 2 "COLLSIM_TREE_REPLAY_BUDGET" '"0"' "positive whole number" -- collective --topology dgx-h100 --algo tree --sizes 1MiB
COLLSIM_TREE_REPLAY_BUDGET=lots expect_error 2 "COLLSIM_TREE_REPLAY_BUDGET" '"lots"' -- collective --topology dgx-h100 --algo tree --sizes 1MiB
# Memory the machine will not give (here an address-space limit) is exit 2 saying so, not an
# internal error: the exact hierarchical ring over 2,048 star hosts stores 8.4 M transfers
# (about 800 MiB).
printf '{"generator": {"kind": "star", "hosts": 2048, "bandwidth": "100Gbps", "latency": "1us"}}\n' >"$TMP/star2048.json"
(
  ulimit -v 300000
  expect_error 2 "out of memory" "fewer ranks" -- collective --topology "$TMP/star2048.json" --algo hier_ring --sizes 64MiB --exact
) || exit 1
# sweep's generated cluster: the GPU model is a flag
expect_error 2 "--gpu" '"K80"' "a GPU model, one of: V100, RTX 2080 Ti, A100" "RTX 5090" -- sweep --workload resnet50 --gpu K80 --ranks 8
# a baseline that cannot be read is bad input (2), not a figure that moved (1); a stored
# command that no longer runs stays a failed check (1, tests/cli/measure_check.sh)
write b_expected.json '{"command": ["collective", "--sizes", "1MiB"], "expected": 5}'
expect_error 2 "b_expected.json" "/expected" "a JSON object" -- check --baseline "$TMP/b_expected.json"
write b_root.json '{"command": ["collective"], "root": "no/such/folder", "expected": {}}'
expect_error 2 "b_root.json" "/root" '"no/such/folder"' -- check --baseline "$TMP/b_root.json"
echo "input_errors: ok"
