#!/usr/bin/env bash
# Sets up, builds, and runs collsim's main job on built-in defaults: the all-reduce
# table (ring and parameter server) for the built-in 8 x H100 NVSwitch node.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
collsim="$root/build/collsim"

echo "== ring all-reduce under NCCL's protocols (its choice per size), built-in 8 x H100 NVSwitch node"
"$collsim" collective --op allreduce --algo ring --sizes 8B:1GiB --factor 4
echo
echo "== parameter-server all-reduce, same node (not an NCCL algorithm: the ideal alpha-beta protocol)"
"$collsim" collective --op allreduce --algo ps --protocol ideal --sizes 8B:1GiB --factor 4

echo
echo "== DDP: ResNet-50 bucket sweep on 4 hosts x 8 H100 (topologies/ddp-4x8-example.json)"
"$collsim" sweep --topology "$root/topologies/ddp-4x8-example.json" --workload resnet50 \
  --bucket-mb 1,2,5,10,25,50,100,200 --ranks 8,16,32

echo
echo "== Capacity plan: DGX H100 on 8x400G IB rail / 8x200G IB rail / 8x400G RoCE fat tree, 64-1024 GPUs,"
echo "   BERT-large DDP and Llama 2 7B FSDP (plans/dgx-h100-clusters.json; report in build/plan-report/)"
"$collsim" plan "$root/plans/dgx-h100-clusters.json" --report "$root/build/plan-report"
