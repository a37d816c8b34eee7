# Helpers for CLI tests. Each test script is run as: bash tests/cli/NAME.sh COLLSIM SOURCE_DIR
set -u
COLLSIM=$1
SRC=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# expect_error CODE SUBSTRING... -- ARGS: runs collsim ARGS, checks the exit code and that stderr has each substring.
expect_error() {
  local code=$1; shift
  local subs=()
  while [[ $1 != -- ]]; do subs+=("$1"); shift; done
  shift
  local rc=0
  "$COLLSIM" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
  [[ $rc == "$code" ]] || fail "collsim $* exited $rc, expected $code; stderr: $(cat "$TMP/err")"
  [[ $(wc -l <"$TMP/err") -ge 1 ]] || fail "collsim $* printed no error message"
  for s in "${subs[@]}"; do grep -qF -- "$s" "$TMP/err" || fail "collsim $* stderr lacks '$s': $(cat "$TMP/err")"; done
}
# need_testbed WHAT: skips the test (exit 77, visible in ctest's summary) unless network
# namespaces and tc can be used here (root, iproute2). Leaves `skip REASON` for later checks.
need_testbed() {
  SKIP_WHAT=$1
  skip() { echo "SKIP: $SKIP_WHAT: $*"; exit 77; }
  [[ $(id -u) == 0 ]] || skip "not root (network namespaces and tc need root)"
  command -v ip >/dev/null && command -v tc >/dev/null || skip "ip/tc (iproute2) not installed"
  ip netns list >/dev/null 2>&1 || skip "network namespaces unavailable"
}
# need_mpi: sets MPIRUN (an mpirun command line that runs on this one machine, as root
# too) and COLLSIM_MPI (collsim-mpi beside collsim). Skips (exit 77, a SKIP line in
# ctest's summary) only where mpirun is absent; mpirun present without collsim-mpi fails.
need_mpi() {
  command -v mpirun >/dev/null || { echo "SKIP: mpirun is not installed (scripts/setup.sh installs openmpi-bin)"; exit 77; }
  COLLSIM_MPI=$(dirname "$COLLSIM")/collsim-mpi
  [[ -x $COLLSIM_MPI ]] || fail "mpirun is here but $COLLSIM_MPI was not built (configure found no MPI: libopenmpi-dev)"
  # Root is CI's user; one machine needs no remote launcher; shared-memory transport only.
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_plm_rsh_agent=false
  export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1
  MPIRUN=(mpirun --oversubscribe --bind-to none)
}
# star_plan FILE WORLD_SIZES GLOBAL_BATCH STRATEGIES [CANDIDATE_EXTRA]: a plan file of
# BERT-large on one candidate, DGX H100 hosts on one 400G InfiniBand switch at $2/GPU-hour.
star_plan() {
  cat >"$1" <<JSON
{"name": "t",
 "candidates": [{"name": "c", "topology": {"generator": {"kind": "cluster", "server": {"kind": "dgx_h100"},
                 "fabric": {"kind": "star", "link_kind": "ib", "nic_bandwidth": "400Gbps"}}},
                 "world_sizes": $2, "price": {"per_gpu_hour": 2.0} ${5:-}}],
 "workloads": [{"file": "$SRC/workloads/bert-large.json", "global_batch": $3}],
 "strategies": [$4]}
JSON
}
