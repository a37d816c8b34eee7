#!/usr/bin/python3
"""Records real PyTorch DDP bucket layouts as ground truth for collsim's bucket assignment.

For each model (ResNet-50, a BERT-base encoder, a mixed fp32/fp16 model, a model with a
sparse embedding) and bucket_cap_mb in {1, 5, 25, 100}, this builds a real
DistributedDataParallel (gloo, world size 1, file:// rendezvous), and reads from the
reducer:
  * the construction buckets (per-bucket parameter indices, recorded by a pass-through
    comm hook during iteration 0, plus the logged bucket_sizes in bytes),
  * the gradient-ready order of one backward (post-hooks on each parameter's
    AccumulateGrad node, the same nodes DDP hooks),
  * the buckets of iteration 1 (rebuilt at its forward when find_unused_parameters=False;
    DDP never rebuilds with find_unused_parameters=True), with rebuilt_bucket_sizes.
Runs with find_unused_parameters False and True (the latter exercises the
[1 MiB, cap] construction limits). Writes JSON (default tests/data/ddp_bucket_truth.json)
or, with --check FILE, compares against FILE and exits 1 on any difference.

Usage: /usr/bin/python3 scripts/ddp_bucket_truth.py [--out FILE | --check FILE]
"""
import argparse
import json
import os
import sys
import tempfile

import torch
import torch.distributed as dist
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from collsim_models import BertEncoder, MixedPrecision, SparseEmbeddingModel  # noqa: E402

CAPS_MB = [1, 5, 25, 100]
DTYPE_NAMES = {torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16",
               torch.float64: "float64"}


def build(name):
    torch.manual_seed(0)
    if name == "resnet50":
        import torchvision
        return torchvision.models.resnet50(), lambda: torch.randn(2, 3, 64, 64)
    if name == "bert_base_encoder":
        return BertEncoder(), lambda: torch.randint(0, 30522, (2, 16))
    if name == "mixed_fp32_fp16":
        return MixedPrecision(), lambda: torch.randn(4, 256)
    if name == "sparse_embedding":
        return SparseEmbeddingModel(), lambda: torch.randint(0, 200000, (8, 2))
    raise ValueError(name)


# ---------------------------------------------------------------- probing
def recorder(index_of, records):
    """A DDP comm hook that records each bucket's parameter indices and returns the
    bucket unchanged (world size 1: the all-reduce result equals the input). It sees
    every bucket, sparse ones included, in launch order."""

    def hook(state, bucket):
        records.append((bucket.index(), [index_of[p.data_ptr()] for p in bucket.parameters()]))
        fut = torch.futures.Future()
        fut.set_result(bucket.buffer())
        return fut

    return hook


def layout(records):
    records = sorted(records)
    assert [i for i, _ in records] == list(range(len(records))), records
    return [members for _, members in records]


def sizes(text):
    return [int(x) for x in text.split(",")] if text else []


def logged_buckets(text):
    """DDP's logged rebuilt_per_bucket_param_indices: buckets separated by commas,
    indices by spaces."""
    return [[int(x) for x in b.split()] for b in text.split(",")] if text else []


def probe(model_name, cap_mb, find_unused):
    model, make_input = build(model_name)
    params = [p for p in model.parameters() if p.requires_grad]
    names = [n for n, p in model.named_parameters() if p.requires_grad]
    index_of = {p.data_ptr(): i for i, p in enumerate(params)}
    sparse_ids = set()
    for m in model.modules():
        if isinstance(m, (nn.Embedding, nn.EmbeddingBag)) and m.sparse:
            sparse_ids.add(id(m.weight))
    ddp = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=cap_mb, find_unused_parameters=find_unused)
    records = []
    ddp.register_comm_hook(None, recorder(index_of, records))
    log0 = ddp._get_ddp_logging_data()

    # Gradient-ready order: post-hooks on the AccumulateGrad nodes (what DDP hooks).
    order = []
    keep = []
    for i, p in enumerate(params):
        acc = p.expand_as(p).grad_fn.next_functions[0][0]
        acc.register_hook(lambda *unused, i=i: order.append(i))
        keep.append(acc)
    # Iteration 0 runs on the construction buckets.
    ddp(make_input()).float().sum().backward()
    construction = layout(records)
    ready_order = list(order)
    # The rebuild happens at the start of iteration 1's forward.
    records.clear()
    ddp(make_input()).float().sum().backward()
    after = layout(records)
    # DDP logs runtime stats (rebuilt sizes and per-bucket indices) from iteration 2 on.
    ddp(make_input()).float().sum().backward()
    log1 = ddp._get_ddp_logging_data()
    case = {
        "model": model_name,
        "bucket_cap_mb": cap_mb,
        "find_unused_parameters": find_unused,
        "parameters": [{"name": n, "numel": p.numel(), "dtype": DTYPE_NAMES[p.dtype],
                        "sparse": id(p) in sparse_ids} for n, p in zip(names, params)],
        "grad_ready_order": ready_order,
        "construction": {"buckets": construction, "bucket_sizes": sizes(log0.get("bucket_sizes", ""))},
        "after_first_iteration": {"buckets": after,
                                  "rebuilt_bucket_sizes": sizes(log1.get("rebuilt_bucket_sizes", "")),
                                  "logged_per_bucket_param_indices": logged_buckets(
                                      log1.get("rebuilt_per_bucket_param_indices", "")),
                                  "logged_grad_ready_order": sizes(
                                      log1.get("prev_iteration_grad_ready_order_indices", ""))},
    }
    del keep
    return case


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--out", default=os.path.join(root, "tests", "data", "ddp_bucket_truth.json"))
    ap.add_argument("--check", help="compare with this committed JSON instead of writing")
    args = ap.parse_args()
    torch.set_num_threads(1)
    rendezvous = tempfile.mktemp(prefix="collsim_ddp_truth_")
    dist.init_process_group("gloo", init_method="file://" + rendezvous, rank=0, world_size=1)
    cases = []
    for model_name in ["resnet50", "bert_base_encoder", "mixed_fp32_fp16", "sparse_embedding"]:
        for cap in CAPS_MB:
            for find_unused in (False, True):
                cases.append(probe(model_name, cap, find_unused))
                print(f"{model_name} cap={cap} find_unused={find_unused}: "
                      f"{len(cases[-1]['construction']['buckets'])} construction, "
                      f"{len(cases[-1]['after_first_iteration']['buckets'])} after iteration 0", file=sys.stderr)
    dist.destroy_process_group()
    if os.path.exists(rendezvous):
        os.remove(rendezvous)
    result = {"torch_version": torch.__version__, "generator": "scripts/ddp_bucket_truth.py", "cases": cases}
    text = json.dumps(result, indent=1) + "\n"
    if args.check:
        with open(args.check) as f:
            committed = json.load(f)
        if committed["cases"] != cases:
            for a, b in zip(committed["cases"], cases):
                if a != b:
                    print(f"differs: {b['model']} cap={b['bucket_cap_mb']} find_unused={b['find_unused_parameters']}",
                          file=sys.stderr)
            return 1
        print(f"{len(cases)} cases match {args.check} (torch {torch.__version__})")
        return 0
    with open(args.out, "w") as f:
        f.write(text)
    print(f"wrote {len(cases)} cases to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
