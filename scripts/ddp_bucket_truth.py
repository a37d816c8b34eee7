#!/usr/bin/env python3
"""Records real PyTorch DDP bucket layouts as ground truth for collsim's bucket assignment.

For each model (ResNet-50, a BERT-base encoder, a mixed fp32/fp16 model, a model with a
sparse embedding) and bucket_cap_mb in {1, 5, 25, 100}, this builds a real
DistributedDataParallel (gloo, world size 1, file:// rendezvous), and reads from the
reducer:
  * the construction buckets (per-bucket parameter indices, via
    reducer._get_zeros_like_grad_buckets(), plus the logged bucket_sizes in bytes),
  * the gradient-ready order of one backward (post-hooks on each parameter's
    AccumulateGrad node, the same nodes DDP hooks),
  * the rebuilt buckets after the next forward (find_unused_parameters=False only; DDP
    never rebuilds with find_unused_parameters=True), with rebuilt_bucket_sizes.
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
import torch.nn.functional as F

CAPS_MB = [1, 5, 25, 100]
DTYPE_NAMES = {torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16",
               torch.float64: "float64"}


# ---------------------------------------------------------------- models
class BertLayer(nn.Module):
    """One HF-style BERT encoder layer; parameter registration order as BertLayer."""

    def __init__(self, h, ffn):
        super().__init__()
        self.attention = nn.Module()
        self.attention.self = nn.Module()
        self.attention.self.query = nn.Linear(h, h)
        self.attention.self.key = nn.Linear(h, h)
        self.attention.self.value = nn.Linear(h, h)
        self.attention.output = nn.Module()
        self.attention.output.dense = nn.Linear(h, h)
        self.attention.output.LayerNorm = nn.LayerNorm(h)
        self.intermediate = nn.Module()
        self.intermediate.dense = nn.Linear(h, ffn)
        self.output = nn.Module()
        self.output.dense = nn.Linear(ffn, h)
        self.output.LayerNorm = nn.LayerNorm(h)
        self.heads = 12

    def forward(self, x):
        b, s, h = x.shape
        sa = self.attention.self

        def split(t):
            return t.view(b, s, self.heads, h // self.heads).transpose(1, 2)

        q, k, v = split(sa.query(x)), split(sa.key(x)), split(sa.value(x))
        att = torch.softmax(q @ k.transpose(-1, -2) / (h // self.heads) ** 0.5, dim=-1)
        ctx = (att @ v).transpose(1, 2).reshape(b, s, h)
        x = self.attention.output.LayerNorm(x + self.attention.output.dense(ctx))
        y = self.output.dense(F.gelu(self.intermediate.dense(x)))
        return self.output.LayerNorm(x + y)


class BertEncoder(nn.Module):
    """BERT-base (BertModel with pooler): same parameter names, shapes and order as
    ../shared/data/models/bert_base_params.csv."""

    def __init__(self, vocab=30522, h=768, layers=12, ffn=3072, positions=512, types=2):
        super().__init__()
        self.embeddings = nn.Module()
        self.embeddings.word_embeddings = nn.Embedding(vocab, h)
        self.embeddings.position_embeddings = nn.Embedding(positions, h)
        self.embeddings.token_type_embeddings = nn.Embedding(types, h)
        self.embeddings.LayerNorm = nn.LayerNorm(h)
        self.encoder = nn.Module()
        self.encoder.layer = nn.ModuleList([BertLayer(h, ffn) for _ in range(layers)])
        self.pooler = nn.Module()
        self.pooler.dense = nn.Linear(h, h)

    def forward(self, ids):
        e = self.embeddings
        pos = torch.arange(ids.shape[1]).unsqueeze(0)
        x = e.LayerNorm(e.word_embeddings(ids) + e.position_embeddings(pos) +
                        e.token_type_embeddings(torch.zeros_like(ids)))
        for layer in self.encoder.layer:
            x = layer(x)
        return torch.tanh(self.pooler.dense(x[:, 0]))


class HalfLinear(nn.Module):
    """A linear layer whose parameters are stored in fp16 (computed in fp32 because CPU
    fp16 matmul is missing in torch 1.13); its gradients are fp16."""

    def __init__(self, i, o):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(o, i, dtype=torch.float16) * 0.01)
        self.bias = nn.Parameter(torch.zeros(o, dtype=torch.float16))

    def forward(self, x):
        return F.linear(x, self.weight.float(), self.bias.float())


class MixedPrecision(nn.Module):
    """Alternating fp32 and fp16 layers: buckets are formed per dtype."""

    def __init__(self):
        super().__init__()
        dims = [256, 512, 1024, 512, 768, 1024, 256, 640, 128]
        mods = []
        for i in range(len(dims) - 1):
            mods.append(HalfLinear(dims[i], dims[i + 1]) if i % 2 else nn.Linear(dims[i], dims[i + 1]))
        self.layers = nn.ModuleList(mods)
        self.head = nn.Linear(128, 10)

    def forward(self, x):
        for m in self.layers:
            x = torch.relu(m(x))
        return self.head(x)


class SparseEmbeddingModel(nn.Module):
    """A recommendation-style model: a sparse-gradient embedding (its own bucket), a dense
    embedding and an MLP."""

    def __init__(self):
        super().__init__()
        self.sparse_table = nn.Embedding(200000, 32, sparse=True)
        self.dense_table = nn.Embedding(5000, 32)
        self.mlp = nn.Sequential(nn.Linear(64, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(),
                                 nn.Linear(1024, 512), nn.ReLU(), nn.Linear(512, 1))

    def forward(self, ids):
        x = torch.cat([self.sparse_table(ids[:, 0]), self.dense_table(ids[:, 1] % 5000)], dim=1)
        return self.mlp(x)


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
def bucket_indices(ddp, index_of):
    buckets = ddp.reducer._get_zeros_like_grad_buckets()
    buckets = sorted(buckets, key=lambda b: b.index())
    return [[index_of[p.data_ptr()] for p in b.parameters()] for b in buckets]


def sizes(text):
    return [int(x) for x in text.split(",")] if text else []


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
    construction = bucket_indices(ddp, index_of)
    log0 = ddp._get_ddp_logging_data()

    # Gradient-ready order: post-hooks on the AccumulateGrad nodes (what DDP hooks).
    order = []
    keep = []
    for i, p in enumerate(params):
        acc = p.expand_as(p).grad_fn.next_functions[0][0]
        acc.register_hook(lambda *unused, i=i: order.append(i))
        keep.append(acc)
    out = ddp(make_input())
    out.float().sum().backward()
    ready_order = list(order)
    # The rebuild happens at the start of the next forward.
    ddp(make_input())
    after = bucket_indices(ddp, index_of)
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
                                  "rebuilt_bucket_sizes": sizes(log1.get("rebuilt_bucket_sizes", ""))},
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
