"""Model definitions shared by collsim's PyTorch scripts (ddp_bucket_truth.py,
export_workload.py): a BERT encoder with Hugging Face BertModel's parameter names, order
and shapes, a GPT-2-style decoder, a mixed fp32/fp16 model and a sparse-embedding model.

A module may set `collsim_extra_forward_flops` (FLOPs of parameter-free work such as the
attention score matmuls) during its forward; export_workload.py adds it to that layer."""
import torch
import torch.nn as nn
import torch.nn.functional as F


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
        # Q K^T and att V: 2 x (2 b s s h) FLOPs, charged to the next layer with weights.
        self.attention.output.dense.collsim_extra_forward_flops = 4 * b * s * s * h
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


class GptBlock(nn.Module):
    """A GPT-2 block (pre-LayerNorm), names as Hugging Face GPT2Block; Linear weights are
    stored out x in (HF's Conv1D stores in x out: same element counts)."""

    def __init__(self, h, heads):
        super().__init__()
        self.ln_1 = nn.LayerNorm(h)
        self.attn = nn.Module()
        self.attn.c_attn = nn.Linear(h, 3 * h)
        self.attn.c_proj = nn.Linear(h, h)
        self.ln_2 = nn.LayerNorm(h)
        self.mlp = nn.Module()
        self.mlp.c_fc = nn.Linear(h, 4 * h)
        self.mlp.c_proj = nn.Linear(4 * h, h)
        self.heads = heads

    def forward(self, x):
        b, s, h = x.shape
        q, k, v = self.attn.c_attn(self.ln_1(x)).split(h, dim=2)

        def split(t):
            return t.view(b, s, self.heads, h // self.heads).transpose(1, 2)

        q, k, v = split(q), split(k), split(v)
        mask = torch.ones(s, s, dtype=torch.bool).tril()
        att = (q @ k.transpose(-1, -2) / (h // self.heads) ** 0.5).masked_fill(~mask, float("-inf"))
        ctx = (torch.softmax(att, dim=-1) @ v).transpose(1, 2).reshape(b, s, h)
        self.attn.c_proj.collsim_extra_forward_flops = 4 * b * s * s * h
        x = x + self.attn.c_proj(ctx)
        return x + self.mlp.c_proj(F.gelu(self.mlp.c_fc(self.ln_2(x))))


class Gpt2(nn.Module):
    """GPT-2 with an LM head tied to the token embedding (GPT-2 medium: 24 layers, 1024
    hidden, 16 heads, 50257 tokens, 1024 positions: 354,823,168 parameters)."""

    def __init__(self, vocab=50257, positions=1024, h=1024, layers=24, heads=16):
        super().__init__()
        self.transformer = nn.Module()
        self.transformer.wte = nn.Embedding(vocab, h)
        self.transformer.wpe = nn.Embedding(positions, h)
        self.transformer.h = nn.ModuleList([GptBlock(h, heads) for _ in range(layers)])
        self.transformer.ln_f = nn.LayerNorm(h)
        self.lm_head = nn.Linear(h, vocab, bias=False)
        self.lm_head.weight = self.transformer.wte.weight

    def forward(self, ids):
        t = self.transformer
        x = t.wte(ids) + t.wpe(torch.arange(ids.shape[1]).unsqueeze(0))
        for block in t.h:
            x = block(x)
        return self.lm_head(t.ln_f(x))
