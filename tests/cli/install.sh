# cmake --install puts collsim, collsim-exec and the shipped data under a prefix; the
# installed binary finds its workloads, topologies, plans and scripts relative to itself,
# from any directory, with no path to the source or build tree compiled in. --version
# prints the version that every JSON output records.
source "$(dirname "$0")/lib.bash"
BUILD=$(cd "$(dirname "$COLLSIM")" && pwd)
PREFIX=$TMP/prefix
cmake --install "$BUILD" --prefix "$PREFIX" >"$TMP/install.log" 2>&1 || fail "cmake --install failed: $(cat "$TMP/install.log")"
BIN=$PREFIX/bin/collsim
[[ -x $BIN && -x $PREFIX/bin/collsim-exec ]] || fail "bin/collsim or bin/collsim-exec not installed: $(cat "$TMP/install.log")"
for f in topologies/dgx-h100.json workloads/resnet50.json plans/dgx-h100-clusters.json scripts/plan_plots.py scripts/goodput_plot.py; do
  [[ -f $PREFIX/share/collsim/$f ]] || fail "share/collsim/$f not installed"
done

# No compile-time path: neither the source nor the build folder appears in the binary.
grep -aqF "$SRC/" "$BIN" && fail "the installed collsim contains the source path $SRC"
grep -aqF "$BUILD/" "$BIN" && fail "the installed collsim contains the build path $BUILD"

# --version: "collsim X.Y.Z" (+ the commit when built from git), the same in JSON outputs.
version=$("$BIN" --version) || fail "collsim --version exited $?"
[[ $version =~ ^collsim\ [0-9]+\.[0-9]+\.[0-9]+(\+g[0-9a-f]+(\.dirty)?)?$ ]] || fail "collsim --version printed '$version'"
exec_version=$("$PREFIX/bin/collsim-exec" --version) || fail "collsim-exec --version exited $?"
[[ $exec_version == "collsim-exec ${version#collsim }" ]] || fail "collsim-exec --version printed '$exec_version'"

# From an unrelated directory, shipped names resolve through the install's share/collsim.
mkdir -p "$TMP/elsewhere" && cd "$TMP/elsewhere" || fail "cd"
"$BIN" ddp --workload resnet50 --topology ddp-4x8-example --ranks 16 --format json >"$TMP/ddp.json" 2>"$TMP/err" ||
  fail "installed collsim ddp --workload resnet50 failed: $(cat "$TMP/err")"
python3 - "$TMP/ddp.json" "${version#collsim }" <<'PY' || fail "ddp JSON: $(head -c 400 "$TMP/ddp.json")"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["collsim_version"] == sys.argv[2], doc.get("collsim_version")
assert doc["workload"] == "resnet50" and doc["ranks"] == 16, (doc["workload"], doc["ranks"])
assert doc["iteration_ps"] > 0, doc["iteration_ps"]
PY
"$BIN" topo show dgx-h100 >"$TMP/show" 2>"$TMP/err" || fail "topo show dgx-h100 (shipped name) failed: $(cat "$TMP/err")"
grep -q '^gpus       8: 8 x H100' "$TMP/show" || fail "topo show dgx-h100: $(cat "$TMP/show")"
# COLLSIM_DATA_DIR overrides the folder next to the binary.
mkdir -p "$TMP/data/workloads" "$TMP/data/topologies"
cp "$PREFIX/share/collsim/workloads/resnet50.json" "$TMP/data/workloads/mine.json"
COLLSIM_DATA_DIR=$TMP/data "$BIN" ddp --workload mine --ranks 8 >/dev/null 2>"$TMP/err" ||
  fail "COLLSIM_DATA_DIR workload 'mine' not found: $(cat "$TMP/err")"
# A name that is not shipped is still a clear error naming it.
COLLSIM=$BIN expect_error 2 "no-such-workload" -- ddp --workload no-such-workload
echo "install: ok (${version})"
