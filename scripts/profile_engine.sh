#!/usr/bin/env bash
# Where the engine's time goes, by phase, on the cases issue 18 tracks: the exact ring on
# the star (N = 2048 and 4096), the hierarchical all-reduce on the 16,384-GPU fat tree and
# on the 131,072-GPU rail-optimised cluster, and a 1,024-GPU tree/LL128 replay (what ddp
# and sweep play). Each case runs once under `perf record` (DWARF call graphs); a phase's
# share is the inclusive share of the samples of the function that does it:
#   topology  load_topology_file (JSON, generation, validation: check_topology_json)
#   validate  check_topology_json (route and reachability checks of the loaded file)
#   routes    LinkGraph::route and append_route (route searches, cache lookups)
#   schedule  build_schedule
#   replay    play_schedule or play_generated (the event loop over a stored or computed
#             schedule: dependencies, flows, rates)
#   rates     FlowNetwork::resolve (max-min recomputation, inside replay)
#   fast      play_phased (the step-per-phase fast path)
#   estimate  estimate_tree (the tree timed from its steady state)
# plus wall seconds and peak RSS of a separate run without perf. Needs linux-perf.
# Usage: scripts/profile_engine.sh [--out FILE] [--quick]   (--quick: skip N = 4096 and 131,072)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/results/bench/profile.md" quick=0
while (($#)); do
  case $1 in
    --out) out=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    *) echo "profile_engine: unknown argument $1" >&2; exit 2 ;;
  esac
done
command -v perf >/dev/null || { echo "profile_engine: perf not found (Debian: apt-get install linux-perf)" >&2; exit 2; }
collsim="$root/build/collsim"
[[ -x $collsim ]] || "$root/scripts/build.sh" >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

star() {
  printf '{"generator": {"kind": "star", "hosts": %d, "bandwidth": "100Gbps", "latency": "1us"}}\n' "$1" >"$work/star$1.json"
  echo "$work/star$1.json"
}

# share FUNCTION: inclusive percentage of the samples in FUNCTION (0 when absent)
# (summed over the distinct functions matching, which do not call each other; an overload's
# name counts once, by its first line, the largest)
share() {
  awk -v f="$1" '$0 ~ "\\] collsim::" f "$" && !seen[$NF]++ {sub("%", "", $1); s += $1} END {printf "%.2f\n", s}' "$work/report"
}

rows=()
profile_case() {  # profile_case LABEL ARGS...
  local label=$1; shift
  local status=ok
  # Memory guard: a case that would need more than 8 GiB fails instead of swapping.
  if ! (ulimit -v 8388608; /usr/bin/time -f "%e %M" -o "$work/time" "$collsim" "$@" >"$work/out" 2>"$work/err"); then
    status="fails: $(grep -m1 -v '^Command' "$work/err" | cut -c1-120)"
  fi
  local wall rss
  read -r wall rss < <(tail -1 "$work/time")
  if [[ $status == ok ]]; then
    perf record -q --call-graph dwarf,16384 -F 200 -o "$work/perf.data" "$collsim" "$@" >/dev/null 2>&1
    perf report -q -i "$work/perf.data" --children --stdio --percent-limit 0.5 -g none 2>/dev/null |
      sed 's/^ *//' >"$work/report"
    rows+=("| $label | $wall | $((rss / 1024)) | $(share 'load_topology_file') | $(share 'check_topology_json') | $(share 'LinkGraph::(route|append_route)') | $(share 'build_schedule') | $(share 'play_(schedule|generated)') | $(share 'FlowNetwork::resolve') | $(share 'play_phased') | $(share 'estimate_tree') |")
  else
    rows+=("| $label | $wall | $((rss / 1024)) | $status | | | | | | |")
  fi
  echo "profile: $label ${wall}s $((rss / 1024)) MiB $status" >&2
}

profile_case "ring --exact, star N=2048, 64 MiB" collective --topology "$(star 2048)" --algo ring --sizes 64MiB --exact --format csv
((quick)) || profile_case "ring --exact, star N=4096, 64 MiB" collective --topology "$(star 4096)" --algo ring --sizes 64MiB --exact --format csv
profile_case "tree/LL128, 1,024-GPU fat tree, 64 MiB" collective --topology "$root/topologies/h100-fat-tree-1024.json" --algo tree --protocol ll128 --sizes 64MiB --format csv
profile_case "hier_ring, 16,384-GPU fat tree, 1 GiB" collective --topology "$root/topologies/h100-fat-tree-16384.json" --algo hier_ring --sizes 1GiB --format csv
((quick)) || profile_case "hier_ring, 131,072-GPU rail cluster, 1 GiB" collective --topology "$root/topologies/h100-rail-131072.json" --algo hier_ring --sizes 1GiB --format csv
((quick)) || profile_case "tree (steady-state estimate), 131,072-GPU rail cluster, 1 GiB" collective --topology "$root/topologies/h100-rail-131072.json" --algo tree --sizes 1GiB --format csv

{
  echo "# Engine profile by phase"
  echo
  echo "Reproduce: \`scripts/profile_engine.sh\` (writes this file; needs linux-perf)."
  echo
  echo "Machine: $(nproc) cores, load average at start of the last case: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo "Commit: $(git -C "$root" rev-parse --short HEAD). Each case: wall seconds and peak RSS of one run, then the"
  echo "inclusive share of \`perf record\` samples (DWARF call graphs, 200 Hz) in the function that does each phase:"
  echo "topology = load_topology_file (parse, generate, validate), validate = check_topology_json,"
  echo "routes = LinkGraph::route and append_route (uncached, the tree estimate's), schedule = build_schedule, replay = play_schedule or play_generated (the event"
  echo "loop, over a stored or a computed schedule),"
  echo "rates = FlowNetwork::resolve (max-min recomputation, part of replay), fast = play_phased (the fast path),"
  echo "estimate = estimate_tree (the tree timed from its steady state, sim/coll/tree_estimate.hpp)."
  echo "Shares overlap where one phase calls another (routes inside replay)."
  echo
  echo "| case | wall s | peak MiB | topology % | validate % | routes % | schedule % | replay % | rates % | fast % | estimate % |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
} >"$out"
echo "profile_engine: wrote $out" >&2
