#!/usr/bin/env bash
# The layers of sim/: prints the include graph between its folders (folder -> folder, with
# the number of #include lines) and checks that every include points down the layer order
# below, or inside its own folder. Exits 1 naming each include that points up (file:line),
# or that comes from or goes to a folder the order does not know; 0 when clean.
# Usage: scripts/layers.sh [repository root]   (default: this script's repository)
#
# A folder is the first path component under sim/ (sim/coll/nccl/ belongs to coll).
# The simulator, lowest first; a folder may include itself and any folder to its left:
#   core   time, units, errors, event queue
#   topo   topologies, loaders, generators, routes (LinkId lives here, not in net)
#   net    the flow-level network model
#   algo   schedules and algorithms (know nothing of links)
#   coll   playing and predicting collectives, their cost caches, NCCL's view
#   train  workloads, DDP and sharded timelines, sweeps
#   plan   capacity planning
#   measure  nccl-tests logs, measurement records, validation
#   report tables, JSON, CSV, traces
#   cli    the collsim command
#   mpi    collsim-mpi: the batch commands on the ranks of an MPI job
# The executor, beside the simulator in its own library (collsim_exec_lib): exec may
# include the folders listed in EXEC_USES; no simulator folder may include exec.
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
[[ -d $root/sim ]] || { echo "layers: $root/sim is not a folder" >&2; exit 2; }
cd "$root"

LAYERS=(core topo net algo coll train plan measure report cli mpi)
EXEC_USES=(core algo)

declare -A rank=()
for i in "${!LAYERS[@]}"; do rank[${LAYERS[$i]}]=$i; done
allowed() {  # allowed FROM TO
  local from=$1 to=$2
  [[ $from == "$to" ]] && return 0
  if [[ $from == exec ]]; then
    local u
    for u in "${EXEC_USES[@]}"; do [[ $u == "$to" ]] && return 0; done
    return 1
  fi
  [[ -n ${rank[$from]+x} && -n ${rank[$to]+x} ]] || return 1
  ((rank[$to] < rank[$from]))
}
why() {  # why FROM TO: one phrase for a refused include
  local from=$1 to=$2
  if [[ $from == exec ]]; then echo "exec may include only: ${EXEC_USES[*]}"
  elif [[ $to == exec ]]; then echo "the simulator does not include the executor"
  elif [[ -z ${rank[$from]+x} ]]; then echo "sim/$from is not in the layer order"
  elif [[ -z ${rank[$to]+x} ]]; then echo "sim/$to is not in the layer order"
  else echo "$to is above $from"
  fi
}

# file:line:folder-from:folder-to for every quoted include of a sim/ header, in a fixed order.
includes=$(find sim -type f \( -name '*.hpp' -o -name '*.cpp' -o -name '*.h' \) -print0 | LC_ALL=C sort -z |
  xargs -0 grep -nH -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"sim/' |
  LC_ALL=C awk -F: '{
    split($1, f, "/"); match($0, /"sim\/[^"\/]+\//); to = substr($0, RSTART + 5, RLENGTH - 6);
    match($0, /"sim\/[^"]+"/); header = substr($0, RSTART + 1, RLENGTH - 2);
    print $1 ":" $2 ":" f[2] ":" to ":" header
  }' || true)

order() {  # sort key of a folder: its rank, exec after the simulator, unknown folders last
  if [[ -n ${rank[$1]+x} ]]; then printf '%02d' "${rank[$1]}"; elif [[ $1 == exec ]]; then echo 90; else echo 99; fi
}

echo "include graph between the folders of sim/ (from -> to: #include lines)"
declare -A edges=()
while IFS=: read -r _ _ from to _; do
  [[ -z $from || $from == "$to" ]] && continue
  edges["$from $to"]=$((${edges["$from $to"]:-0} + 1))
done <<<"$includes"
for edge in "${!edges[@]}"; do
  read -r from to <<<"$edge"
  printf '%s %s %s %s %d\n' "$(order "$from")" "$(order "$to")" "$from" "$to" "${edges[$edge]}"
done | LC_ALL=C sort -k1,1 -k2,2r | while read -r _ _ from to count; do
  printf '  %-8s -> %-8s %4d\n' "$from" "$to" "$count"
done

echo "layers (lowest first): $(printf '%s < ' "${LAYERS[@]}" | sed 's/ < $//')"
echo "exec (collsim_exec_lib) uses: ${EXEC_USES[*]}"

bad=0
while IFS=: read -r file line from to header; do
  [[ -z $file ]] && continue
  if ! allowed "$from" "$to"; then
    echo "violation: $file:$line: $from includes $header ($(why "$from" "$to"))"
    bad=$((bad + 1))
  fi
done <<<"$includes"
if ((bad > 0)); then
  echo "layers: $bad include(s) break the layer order" >&2
  exit 1
fi
echo "ok: every include points down the layer order"
