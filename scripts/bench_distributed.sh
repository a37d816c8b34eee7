#!/usr/bin/env bash
# Issue 22's scale figures: a 24-item capacity plan (3 DGX H100 clusters x 8 world sizes,
# 8..1024 GPUs, BERT-large DDP and Llama 2 7B FSDP) on 1, 2 and 4 MPI ranks of this
# machine (mpirun --oversubscribe, --jobs 1 per rank), plain collsim --jobs 1 and 2 beside
# them; the per-item costs from the one-thread run's journal; rank 0's cost per result
# from the 4-rank run's -v log; and the projection to 16..256 nodes
# (scripts/project_distributed.py). Prints Markdown; results/bench/distributed.md holds a run.
# Usage: scripts/bench_distributed.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
collsim=${COLLSIM:-$root/build/collsim}
collsim_mpi=$(dirname "$collsim")/collsim-mpi
[[ -x $collsim_mpi ]] || { echo "bench_distributed: $collsim_mpi is not built (needs libopenmpi-dev)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_plm_rsh_agent=false
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
worlds='[8, 16, 32, 64, 128, 256, 512, 1024]'
cat >"$out/plan.json" <<JSON
{"name": "distributed-bench",
 "candidates": [
   {"name": "rail-400g", "topology": {"generator": {"kind": "cluster", "server": {"kind": "dgx_h100"},
     "fabric": {"kind": "rail_optimized", "link_kind": "ib", "nic_bandwidth": "400Gbps", "nics_per_leaf": 32, "spines": 16}}},
    "world_sizes": $worlds, "price": {"per_gpu_hour": 2.5}},
   {"name": "star-200g", "topology": {"generator": {"kind": "cluster", "server": {"kind": "dgx_h100"},
     "fabric": {"kind": "star", "link_kind": "ib", "nic_bandwidth": "200Gbps"}}},
    "world_sizes": $worlds, "price": {"per_gpu_hour": 2.0}},
   {"name": "fat-tree-400g", "topology": {"generator": {"kind": "cluster", "server": {"kind": "dgx_h100"},
     "fabric": {"kind": "fat_tree", "link_kind": "roce", "nic_bandwidth": "400Gbps", "nics_per_leaf": 32, "spines": 16}}},
    "world_sizes": $worlds, "price": {"per_gpu_hour": 2.2}}],
 "workloads": [{"file": "$root/workloads/bert-large.json", "global_batch": 1024},
               {"file": "$root/workloads/llama2-7b.json", "global_batch": 1024}],
 "strategies": [{"name": "ddp", "kind": "ddp", "bucket_mb": [25, 100], "accumulate": [1, 2]},
                {"name": "fsdp", "kind": "fsdp", "sharding": ["full_shard", "hybrid_shard"]}]}
JSON
TIMEFORMAT='%R'
# run NAME CMD...: wall seconds of CMD, its CSV kept as $out/NAME.csv
run() {
  local name=$1; shift
  local t
  t=$( { time "$@" --format csv >"$out/$name.csv" 2>"$out/$name.err"; } 2>&1 ) || { cat "$out/$name.err" >&2; exit 1; }
  echo "$t"
}
echo "## Wall time of one 24-item plan on this machine"
echo
echo "$(nproc) cores, load average at start $(cut -d' ' -f1 /proc/loadavg); commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)."
echo
echo "| runner | wall (s) | speed-up vs 1 thread | output identical |"
echo "|---|---:|---:|---|"
base=$(run one "$collsim" plan "$out/plan.json" --jobs 1 --journal "$out/costs.jsonl")
echo "| collsim --jobs 1 | $base | 1.00 | (reference) |"
t=$(run two "$collsim" plan "$out/plan.json" --jobs 2)
same=$(cmp -s "$out/one.csv" "$out/two.csv" && echo yes || echo NO)
echo "| collsim --jobs 2 | $t | $(python3 -c "print(f'{$base/$t:.2f}')") | $same |"
for np in 1 2 4; do
  t=$(run mpi$np mpirun --oversubscribe --bind-to none -np $np "$collsim_mpi" -v plan "$out/plan.json" --jobs 1)
  same=$(cmp -s "$out/one.csv" "$out/mpi$np.csv" && echo yes || echo NO)
  echo "| mpirun --bind-to none -np $np collsim-mpi --jobs 1 | $t | $(python3 -c "print(f'{$base/$t:.2f}')") | $same |"
done
line=$(grep -h "rank 0 answered" "$out/mpi4.err" | tail -n 1)
requests=$(sed -E 's/.*answered ([0-9]+) requests.*/\1/' <<<"$line")
seconds=$(sed -E 's/.* s wall, ([0-9.]+) s CPU.*/\1/' <<<"$line")
gather=$(python3 -c "print($seconds / max($requests, 1))")
echo
echo "Rank 0 (4 ranks): $line. The projection takes the CPU time per request: on this"
echo "oversubscribed machine (4 ranks on 2 cores) the wall time includes waiting for a core."
echo
python3 "$root/scripts/project_distributed.py" "$out/costs.jsonl" "$gather"
