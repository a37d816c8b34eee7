#!/usr/bin/env bash
# Engine speed benchmark: times collsim's CLI (whole process, pinned to one core) on
# all-reduce cases, side by side with the SimGrid peer (tests/bench/peers/simgrid, pure
# max-min/alpha-beta model) where libsimgrid is present, and writes a markdown table of
# medians, peak RSS, predictions and speed ratios.
#
# Usage: scripts/bench_engine.sh [--runs K] [--max-n N] [--no-simgrid] [--out FILE]
#   --runs K       runs per collsim case (median reported; default 3). SimGrid runs K times
#                  up to N = 1024 and once above (N = 4096 takes minutes).
#   --max-n N      largest star size (default 4096)
#   --out FILE     default results/bench/engine.md
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=3 max_n=4096 simgrid=1 out="$root/results/bench/engine.md"
while (($#)); do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --max-n) max_n=$2; shift 2 ;;
    --no-simgrid) simgrid=0; shift ;;
    --out) out=$2; shift 2 ;;
    *) echo "bench_engine: unknown argument $1" >&2; exit 2 ;;
  esac
done
collsim="$root/build/collsim"
[[ -x $collsim ]] || "$root/scripts/build.sh" >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

peer=""
if ((simgrid)) && [[ -f /usr/include/simgrid/s4u.hpp ]]; then
  cmake -S "$root/tests/bench/peers/simgrid" -B "$work/peer" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$work/peer" >/dev/null
  peer="$work/peer/allreduce_peer"
fi

B_BPS=12.5e9   # 100 Gb/s per direction
L_S=1e-6       # 1 us per link
S=67108864     # 64 MiB
pin=(taskset -c 0)
command -v taskset >/dev/null || pin=()

# median of the numbers on stdin
median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.6g\n", (a[NR/2]+a[NR/2+1])/2}'; }

# run_timed OUTFILE CMD...: one run; appends "wall_s rss_kb" to OUTFILE.stats, output to OUTFILE.
# Wall time to the millisecond from bash's EPOCHREALTIME around the process (GNU time's %e
# has 10 ms steps, which decided the ratios of the 10-20 ms cases); peak RSS from GNU time.
run_timed() {
  local outfile=$1; shift
  local t0=$EPOCHREALTIME
  /usr/bin/time -f "%M" -o "$work/time" "${pin[@]}" "$@" >"$outfile"
  local t1=$EPOCHREALTIME
  echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}') $(cat "$work/time")" >>"$outfile.stats"
}

star_file() {  # star_file N -> path of a star topology JSON
  local f="$work/star$1.json"
  [[ -f $f ]] || printf '{"generator": {"kind": "star", "hosts": %d, "bandwidth": "100Gbps", "latency": "1us"}}\n' "$1" >"$f"
  echo "$f"
}

rows=()
bench_case() {  # bench_case ALGO PEER_ALGO N [--exact]
  local algo=$1 peer_algo=$2 n=$3 mode=${4:-} tag="$1-$3${4:-}"
  local topo; topo=$(star_file "$n")
  rm -f "$work/$tag.c.stats" "$work/$tag.s.stats"
  for ((i = 0; i < runs; i++)); do
    run_timed "$work/$tag.c" "$collsim" collective --topology "$topo" --algo "$algo" --sizes "${S}B" --format csv $mode
  done
  local c_wall c_rss c_pred
  c_wall=$(awk '{print $1}' "$work/$tag.c.stats" | median)
  c_rss=$(awk '{print $2}' "$work/$tag.c.stats" | sort -n | tail -1)
  c_pred=$(tail -1 "$work/$tag.c" | cut -d, -f8)   # time_us
  local s_wall="-" s_rss="-" s_pred="-" ratio="-" diff="-"
  if [[ -n $peer && -n ${peer_algo} ]]; then
    local k=$runs; ((n > 1024)) && k=1
    for ((i = 0; i < k; i++)); do
      run_timed "$work/$tag.s" "$peer" "$peer_algo" "$n" "$S" "$B_BPS" "$L_S" star \
        --cfg=network/model:CM02 --cfg=network/crosstraffic:0 2>/dev/null
    done
    s_wall=$(awk '{print $1}' "$work/$tag.s.stats" | median)
    s_rss=$(awk '{print $2}' "$work/$tag.s.stats" | sort -n | tail -1)
    s_pred=$(grep -o 'predicted_s=[^ ]*' "$work/$tag.s" | tail -1 | cut -d= -f2)
    ratio=$(awk -v a="$s_wall" -v b="$c_wall" 'BEGIN {printf "%.1f", a / (b > 0 ? b : 0.0005)}')
    diff=$(awk -v c="$c_pred" -v s="$s_pred" 'BEGIN {d = (c * 1e-6 - s) / s; if (d < 0) d = -d; printf "%.1e", d}')
    s_rss=$((s_rss / 1024))
  fi
  local transfers=$((2 * (n - 1)))
  [[ $algo == ring ]] && transfers=$((2 * n * (n - 1)))
  local label=$algo
  [[ $mode == --exact ]] && label="$algo --exact"
  [[ $algo == ring && -z $mode ]] && label="ring (fast path)"
  rows+=("| $label | $n | $transfers | $c_wall | $((c_rss / 1024)) | $s_wall | $s_rss | $ratio | $c_pred | $s_pred | $diff |")
  echo "bench: $algo $mode N=$n collsim ${c_wall}s simgrid ${s_wall}s ratio $ratio" >&2
  [[ $s_wall != - ]] && last_simgrid_wall=$s_wall last_simgrid_rss=$s_rss last_simgrid_pred=$s_pred
  return 0
}

# A case without a SimGrid counterpart: cluster_case LABEL TOPOLOGY ARGS...
big_rows=()
cluster_case() {
  local label=$1 topo=$2; shift 2
  rm -f "$work/big.stats"
  for ((i = 0; i < runs; i++)); do run_timed "$work/big" "$collsim" "$@" --topology "$topo" --format csv; done
  local wall rss
  wall=$(awk '{print $1}' "$work/big.stats" | median)
  rss=$(awk '{print $2}' "$work/big.stats" | sort -n | tail -1)
  big_rows+=("| $label | \`$(basename "$topo")\` | $wall | $((rss / 1024)) | $(tail -1 "$work/big" | cut -d, -f1-8 | tr ',' ' ') |")
  echo "bench: $label ${wall}s $((rss / 1024)) MiB" >&2
}

for n in 256 512 1024 2048 4096; do
  ((n <= max_n)) || continue
  bench_case ring ring "$n" --exact
  bench_case ring "" "$n"
  # the fast-path row compares with the same SimGrid runs
  if [[ -n $peer ]]; then
    last=${rows[-1]}
    c_wall=$(cut -d'|' -f5 <<<"$last" | tr -d ' ')
    ratio=$(awk -v a="$last_simgrid_wall" -v b="$c_wall" 'BEGIN {printf "%.1f", a / (b > 0 ? b : 0.0005)}')
    c_pred=$(cut -d'|' -f10 <<<"$last" | tr -d ' ')
    diff=$(awk -v c="$c_pred" -v s="$last_simgrid_pred" 'BEGIN {d = (c * 1e-6 - s) / s; if (d < 0) d = -d; printf "%.1e", d}')
    rows[-1]=$(awk -F'|' -v sw="$last_simgrid_wall" -v sr="$last_simgrid_rss" -v r="$ratio" -v sp="$last_simgrid_pred" -v d="$diff" \
      'BEGIN {OFS="|"} {$7=" " sw " "; $8=" " sr " "; $9=" " r " "; $11=" " sp " "; $12=" " d " "; print}' <<<"$last")
  fi
done
for n in 1024 4096; do
  ((n <= max_n)) && bench_case ps ps "$n"
done
if "$collsim" collective --algo bintree --sizes 1KiB >/dev/null 2>&1; then
  for n in 1024 4096; do
    ((n <= max_n)) && bench_case bintree tree "$n"
  done
fi

cluster_case "hier_ring 1 GiB (fast path)" "$root/topologies/h100-fat-tree-1024.json" collective --algo hier_ring --sizes 1GiB
cluster_case "hier_ring 1 GiB --exact" "$root/topologies/h100-fat-tree-1024.json" collective --algo hier_ring --sizes 1GiB --exact
cluster_case "hier_ring 1 GiB (fast path)" "$root/topologies/h100-rail-131072.json" collective --algo hier_ring --sizes 1GiB
# Contention the fast path cannot solve: an all-to-all on a 2:1 oversubscribed fat tree
# (1,024 GPUs' flows all in flight over the thin leaf uplinks: a full replay), and many
# groups' collectives concurrent on one fabric (a Megatron layout's 32 data-parallel groups
# of 32 ranks, 128 tensor-parallel groups and the pipeline's sends).
cat >"$work/fat-tree-1024-2to1.json" <<'JSON'
{"name": "h100-fat-tree-1024-2to1",
 "generator": {"kind": "cluster", "hosts": 128, "server": {"kind": "dgx_h100"},
   "fabric": {"kind": "fat_tree", "link_kind": "ib", "nic_bandwidth": "400Gbps", "nics_per_leaf": 32, "spines": 8,
              "oversubscription": 2}}}
JSON
cluster_case "all-to-all 64 MiB (full replay), 2:1 fat tree" "$work/fat-tree-1024-2to1.json" collective --op alltoall --sizes 64MiB
cluster_case "LLM step, Llama 2 70B t8 p4 d32 (concurrent groups)" "$root/topologies/h100-fat-tree-1024.json" llm --model llama2-70b --tp 8 --pp 4 --dp 32 --global-batch 1024
if "$collsim" ddp --help >/dev/null 2>&1 && [[ -f $root/workloads/bert-large.json ]]; then
  cluster_case "DDP iteration, BERT-large" "$root/topologies/h100-fat-tree-1024.json" ddp --workload "$root/workloads/bert-large.json"
fi

mkdir -p "$(dirname "$out")"
# A hand-written section (from its "## Targets" heading to the end) is kept as it is.
notes=""
[[ -f $out ]] && notes=$(sed -n '/^## Targets/,$p' "$out")
{
  echo "# Engine speed: collsim vs SimGrid 3.32 on the star"
  echo
  echo "Reproduce: \`scripts/bench_engine.sh --runs $runs --max-n $max_n\` (writes this file)."
  echo
  echo "Machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), load average at start: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo "Each process pinned to one core (\`taskset -c 0\`); wall time to the millisecond of the whole process (start-up, topology,"
  echo "schedule and simulation), median of $runs runs for collsim and of $runs runs for SimGrid up to N = 1024 (one run above)."
  echo "Star: every host on its own 100 Gb/s (12.5 GB/s) split-duplex link with 1 us latency to a non-blocking switch;"
  echo "all-reduce of 64 MiB. SimGrid runs with \`--cfg=network/model:CM02 --cfg=network/crosstraffic:0\` (pure max-min)."
  echo
  echo "| algo | N | transfers | collsim s | collsim MiB | SimGrid s | SimGrid MiB | speed-up | collsim us | SimGrid s | rel. diff |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "Large clusters (no SimGrid counterpart; whole process, median of $runs runs):"
  echo
  echo "| case | topology | wall s | peak MiB | prediction (collective: op ranks size count type redop root time_us; llm: the last stage's first 8 CSV fields) |"
  echo "|---|---|---|---|---|"
  printf '%s\n' "${big_rows[@]}"
  [[ -z $notes ]] || printf '\n%s\n' "$notes"
} >"$out.new"
mv "$out.new" "$out"
echo "bench: wrote $out" >&2
