# Issue 15's acceptance on 4 hosts x 8 V100 with one 100 GbE NIC each, mixed precision (fp16):
# the best bucket_cap_mb of ResNet-50 and BERT-large sweeps is neither the smallest nor the
# largest swept, and Gloo is slower than NCCL for ResNet-50 with its buckets taking longer.
source "$(dirname "$0")/lib.bash"
best() {  # best bucket size of a sweep (CSV column "best")
  "$COLLSIM" sweep --topology 4x-v100-1x100gbe --compute-precision fp16 --format csv "$@" |
    awk -F, 'NR > 1 && $8 == 1 { print $2 }'
}
r=$(best --workload resnet50 --bucket-mb 1,5,10,25,50,100)
[[ $r != 1 && $r != 100 && -n $r ]] || fail "ResNet-50: best bucket $r MiB of 1..100"
b=$(best --workload bert-large --bucket-mb 1,5,25,50,100,200)
[[ $b != 1 && $b != 200 && -n $b ]] || fail "BERT-large: best bucket $b MiB of 1..200"
step() {
  "$COLLSIM" ddp --topology 4x-v100-1x100gbe --workload resnet50 --compute-precision fp16 --format json "$@" |
    python3 -c 'import json, sys; d = json.load(sys.stdin); print(d["iteration_ms"], d["buckets"][0]["end_ps"] - d["buckets"][0]["start_ps"])'
}
read -r nccl nccl_bucket0 <<<"$(step)"
read -r gloo gloo_bucket0 <<<"$(step --backend gloo)"
python3 -c "import sys; sys.exit(not ($gloo > $nccl and $gloo_bucket0 > $nccl_bucket0))" ||
  fail "Gloo $gloo ms (first bucket $gloo_bucket0 ps) is not slower than NCCL $nccl ms ($nccl_bucket0 ps)"
echo "ok: best ResNet-50 $r MiB, BERT-large $b MiB; NCCL $nccl ms, Gloo $gloo ms"
