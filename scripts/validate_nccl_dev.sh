#!/usr/bin/env bash
# Predicts every nccl-tests log of the development set (tests/data/nccl-tests/dev/*.txt)
# on its topology (tests/data/nccl-tests/dev/topologies/<log>.json) with collsim validate,
# and writes results/validation/nccl/: raw/<log>.json (validate's JSON), summary.md (per
# log: size | measured | predicted | error, the geometric-mean error over sizes >= 1 MiB,
# the max |error| below 64 KiB, against issue 13's targets) and <log>.png (bus bandwidth,
# measured and predicted, by size).
#
#   scripts/validate_nccl_dev.sh [path/to/collsim]      (default: build/collsim)
#
# NCCL knobs: those collsim models among the "-x NCCL_...=..." of the header's "# command:"
# line (NCCL_ALGO=Tree, NCCL_NET_GDR_LEVEL=1, ...), passed as --nccl-env; no NCCL_ALGO there:
# auto (NCCL's choice among ring, tree and NVLS as collsim models it).
# Protocol: --protocol auto when this collsim's validate has the option, else its default.
# The tolerances are wide open (1000 %: exit 1 still means "data produced"; exit 2 is an
# error and stops the script): the report judges the errors, not validate. Same build, same
# bytes: paths are relative to the repository, rows in file order, PNGs without metadata.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
collsim=${1:-$root/build/collsim}
[[ $collsim == /* ]] || collsim=$PWD/$collsim
[[ -x $collsim ]] || { echo "validate_nccl_dev.sh: no collsim at $collsim (build it first)" >&2; exit 2; }
# Debian's python3 has matplotlib (python3-matplotlib, scripts/setup.sh); a pyenv python3
# first on PATH may not. COLLSIM_PYTHON overrides.
py=${COLLSIM_PYTHON:-/usr/bin/python3}
[[ -x $py ]] || py=python3
cd "$root"
logs=tests/data/nccl-tests/dev
out=results/validation/nccl
mkdir -p "$out/raw"
rm -f "$out"/raw/*.json "$out"/*.png "$out/summary.md"

protocol=()
notes=()
if "$collsim" validate --help | grep -q -- '--protocol'; then
  protocol=(--protocol auto)
  notes+=(--note "Protocol: --protocol auto (NCCL's choice per size, as collsim models it).")
else
  notes+=(--note "Protocol: this collsim's validate has no --protocol option; its default protocol model was used.")
fi
notes+=(--note "Command per log: \`collsim validate --measured LOG --topology TOPOLOGY --algo auto [--nccl-env KNOBS] ${protocol[*]}${protocol:+ }--tolerance 1000% --median-tolerance 1000% --format json\`, KNOBS = the NCCL variables collsim models that the command line in the log's header sets (-x NCCL_ALGO=Tree, -x NCCL_NET_GDR_LEVEL=1, ...); without NCCL_ALGO there, auto is NCCL's choice among ring, tree and NVLS as collsim models it. Exit 1 (rows beyond the wide tolerance) still produces every row.")

modelled='ALGO|PROTO|MIN_NCHANNELS|MAX_NCHANNELS|NVLS_ENABLE|CROSS_NIC|P2P_DISABLE|P2P_LEVEL|NET_GDR_LEVEL'
shopt -s nullglob
count=0
for log in "$logs"/*.txt; do
  system=$(basename "$log" .txt)
  topology=$logs/topologies/$system.json
  [[ -f $topology ]] || { echo "validate_nccl_dev.sh: $log has no topology $topology" >&2; exit 2; }
  # The knobs collsim models among the "-x NCCL_...=..." of the header's "# command:" line
  # (the run's launch, as transcribed; other comments may quote variables of other runs).
  knobs=$(grep -m1 '^# command' "$log" | grep -oE "NCCL_(${modelled})=[^ ]+" | tr '\n' ' ' | sed 's/ $//' || true)
  env_args=()
  [[ -z $knobs ]] || env_args=(--nccl-env "$knobs")
  args=(validate --measured "$log" --topology "$topology" --algo auto "${env_args[@]}" "${protocol[@]}"
        --tolerance 1000% --median-tolerance 1000% --format json)
  rc=0
  "$collsim" "${args[@]}" >"$out/raw/$system.json" 2>"$out/raw/$system.err" || rc=$?
  if [[ $rc != 0 && $rc != 1 ]]; then
    echo "validate_nccl_dev.sh: collsim ${args[*]} exited $rc:" >&2
    cat "$out/raw/$system.err" >&2
    exit 2
  fi
  rm -f "$out/raw/$system.err"
  notes+=(--exit-code "$system=$rc")
  count=$((count + 1))
done
[[ $count -gt 0 ]] || { echo "validate_nccl_dev.sh: no logs in $logs" >&2; exit 2; }
"$py" "$root/scripts/nccl_dev_report.py" --raw "$out/raw" --logs "$logs" --out "$out" "${notes[@]}"
echo "wrote $out/summary.md, $count plots and raw outputs"
