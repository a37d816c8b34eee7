# collsim topo import-nccl: the three hand-written NCCL dumps (tests/data/nccl-xml) convert
# to valid topologies equal to the shipped files up to node ids, one of them also as a
# 4-host cluster; output is deterministic; bad input exits 2 naming file, line and attribute.
source "$(dirname "$0")/lib.bash"
T=$SRC/topologies
X=$SRC/tests/data/nccl-xml

for name in dgx-a100 dgx-h100 pcie-8gpu; do
  "$COLLSIM" topo import-nccl "$X/$name.xml" -o "$TMP/$name.json" || fail "import $name exited $?"
  "$COLLSIM" topo validate "$TMP/$name.json" >"$TMP/valid" || fail "imported $name is not valid: $(cat "$TMP/valid")"
  "$COLLSIM" topo compare "$TMP/$name.json" "$T/$name.json" >"$TMP/cmp" ||
    fail "imported $name differs from topologies/$name.json: $(cat "$TMP/cmp")"
  grep -q 'equal up to ids' "$TMP/cmp" || fail "compare output: $(cat "$TMP/cmp")"
  # Deterministic, and stdout carries the same bytes as -o.
  "$COLLSIM" topo import-nccl "$X/$name.xml" | cmp -s - "$TMP/$name.json" || fail "$name: output differs between runs"
done

# 4 hosts on a star, NIC speed from the dump (200 Gb/s): the shipped 4 x DGX A100 cluster.
"$COLLSIM" topo import-nccl "$X/dgx-a100.xml" --nodes 4 --fabric star,link_kind=ib -o "$TMP/4x.json" ||
  fail "cluster import exited $?"
grep -q '"nic_bandwidth": "200Gbps"' "$TMP/4x.json" || fail "NIC speed not taken from the dump: $(cat "$TMP/4x.json")"
"$COLLSIM" topo compare "$TMP/4x.json" "$T/4x-dgx-a100-8x200g-ib.json" >"$TMP/cmp" ||
  fail "4 x DGX A100 import differs from the shipped cluster: $(cat "$TMP/cmp")"
# 4 hosts on the shipped rail-optimised fabric (400 Gb/s from the dump): the shipped cluster.
"$COLLSIM" topo import-nccl "$X/dgx-h100.xml" --nodes 4 \
  --fabric rail_optimized,link_kind=ib,nics_per_leaf=32,spines=4,oversubscription=1 -o "$TMP/rail.json" ||
  fail "rail import exited $?"
"$COLLSIM" topo validate "$TMP/rail.json" >/dev/null || fail "rail import is not valid"
"$COLLSIM" topo compare "$TMP/rail.json" "$T/4x-dgx-h100-rail-8x400g-ib.json" >"$TMP/cmp" ||
  fail "4 x DGX H100 rail import differs from the shipped cluster: $(cat "$TMP/cmp")"
# Fabric keys are typed: a count that is not an integer names the key.
expect_error 2 "--fabric" "nics_per_leaf" '"many"' "an integer" -- topo import-nccl "$X/dgx-h100.xml" --nodes 2 --fabric fat_tree,nics_per_leaf=many

# compare reports differences with exit 1.
rc=0
"$COLLSIM" topo compare "$TMP/dgx-a100.json" "$T/dgx-h100.json" >"$TMP/cmp" 2>&1 || rc=$?
[[ $rc == 1 ]] || fail "compare of different machines exited $rc"
grep -q 'in the first' "$TMP/cmp" || fail "compare does not say what differs: $(cat "$TMP/cmp")"

# Bad input: malformed XML, a missing attribute, an unknown GPU, a bad option.
printf '<system version="1">\n  <cpu numaid="0">\n</system>\n' >"$TMP/malformed.xml"
expect_error 2 "malformed.xml" "line 3" "</cpu> closing the element opened on line 2" -- topo import-nccl "$TMP/malformed.xml"
sed '0,/ link_width="16"/s/ link_width="16"//' "$X/dgx-a100.xml" >"$TMP/nowidth.xml"
expect_error 2 "nowidth.xml" "line 8, <pci> attribute \"link_width\"" "link_width=" -- topo import-nccl "$TMP/nowidth.xml"
sed 's/0x20b5/0x20b7/' "$X/pcie-8gpu.xml" >"$TMP/a30.xml"
expect_error 2 "a30.xml" "line 10, <gpu> attribute \"sm\"" "--gpu-model" -- topo import-nccl "$TMP/a30.xml"
"$COLLSIM" topo import-nccl "$TMP/a30.xml" --gpu-model A100 >/dev/null || fail "--gpu-model A100 not accepted"
expect_error 2 "--fabric" '"torus"' "star, fat_tree, rail_optimized" -- topo import-nccl "$X/dgx-a100.xml" --nodes 2 --fabric torus
expect_error 2 "--fabric" "--nodes K and --fabric KIND together" -- topo import-nccl "$X/dgx-a100.xml" --nodes 2
expect_error 2 "$TMP/nope.xml" "readable file" -- topo import-nccl "$TMP/nope.xml"
expect_error 2 "$TMP" "a directory" -- topo import-nccl "$TMP"
echo "topo_import_nccl: ok"
