"""Model definitions shared by collsim's PyTorch scripts (ddp_bucket_truth.py,
export_workload.py): a BERT encoder with Hugging Face BertModel's parameter names, order
and shapes, a GPT-2-style decoder, a mixed fp32/fp16 model and a sparse-embedding model.

A module may set `collsim_extra_forward_flops` (FLOPs of parameter-free work such as the
attention score matmuls) during its forward; export_workload.py adds it to that layer."""
import torch
import torch.nn as nn
import torch.nn.functional as F


def korthikanti_terms(s, h, a, attention_scores=True):
    """Per-sample bytes of Korthikanti et al. 2022 s. 4.1 (16-bit activations, 1-byte
    dropout masks), keyed by the role of the module they are charged to:
      attention: QKV input 2sh, Q and K 4sh, softmax output 2as^2, softmax dropout mask
                 as^2, attention over V (dropout output 2as^2 and V 2sh), output projection
                 input 2sh, attention dropout mask sh  = 11sh + 5as^2
      MLP:       first linear input 2sh, nonlinearity input 8sh, second linear input 8sh,
                 dropout mask sh  = 19sh
      two layer norms' inputs 2 x 2sh  = 4sh
    Total 34sh + 5as^2. attention_scores=False drops the 5as^2 terms: a fused
    (memory-efficient / flash) attention kernel never stores the s x s scores."""
    scores = 5 * a * s * s if attention_scores else 0
    return {
        "norm1": 2 * s * h,
        "qkv_input": 2 * s * h,      # the normed input, saved once for all three projections
        "q": 2 * s * h, "k": 2 * s * h, "v": 2 * s * h,
        "out_proj": 2 * s * h + s * h + scores,  # its input, the attention dropout mask, the scores
        "norm2": 2 * s * h,
        "fc1": 2 * s * h,            # first MLP linear's input
        "act": 8 * s * h,            # the 4h-wide nonlinearity input
        "fc2": 8 * s * h + s * h,    # second MLP linear's input and the MLP dropout mask
    }


def korthikanti_layer_total(s, h, a, attention_scores=True):
    return sum(korthikanti_terms(s, h, a, attention_scores).values())


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
        t = korthikanti_terms(s, h, self.heads)
        sa.query.collsim_activation_bytes_per_sample = t["qkv_input"] + t["q"]
        sa.key.collsim_activation_bytes_per_sample = t["k"]
        sa.value.collsim_activation_bytes_per_sample = t["v"]
        self.attention.output.dense.collsim_activation_bytes_per_sample = t["out_proj"]
        self.attention.output.LayerNorm.collsim_activation_bytes_per_sample = t["norm1"]
        self.intermediate.dense.collsim_activation_bytes_per_sample = t["fc1"]
        self.output.dense.collsim_activation_bytes_per_sample = t["act"] + t["fc2"]
        self.output.LayerNorm.collsim_activation_bytes_per_sample = t["norm2"]
        ctx = (att @ v).transpose(1, 2).reshape(b, s, h)
        x = self.attention.output.LayerNorm(x + self.attention.output.dense(ctx))
        y = self.output.dense(F.gelu(self.intermediate.dense(x)))
        return self.output.LayerNorm(x + y)


class BertEncoder(nn.Module):
    """BERT-base (BertModel with pooler): same parameter names, shapes and order as
    tests/data/models/bert_base_params.csv."""

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
        s, h = ids.shape[1], x.shape[-1]
        # Korthikanti s. 4.3: the embedding dropout's 1-byte mask (sh); plus this LayerNorm's
        # 16-bit input (2sh). Embedding lookups save only the token ids.
        for emb in (e.word_embeddings, e.position_embeddings, e.token_type_embeddings):
            emb.collsim_activation_bytes_per_sample = 0
        e.LayerNorm.collsim_activation_bytes_per_sample = 2 * s * h + s * h
        # The pooler saves its input (the first token, 2h) and its tanh output (2h).
        self.pooler.dense.collsim_activation_bytes_per_sample = 4 * h
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
        t = korthikanti_terms(s, h, self.heads)
        self.ln_1.collsim_activation_bytes_per_sample = t["norm1"]
        self.attn.c_attn.collsim_activation_bytes_per_sample = t["qkv_input"] + t["q"] + t["k"] + t["v"]
        self.attn.c_proj.collsim_activation_bytes_per_sample = t["out_proj"]
        self.ln_2.collsim_activation_bytes_per_sample = t["norm2"]
        self.mlp.c_fc.collsim_activation_bytes_per_sample = t["fc1"]
        self.mlp.c_proj.collsim_activation_bytes_per_sample = t["act"] + t["fc2"]
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
        output_layer_activations(t.wte, t.wpe, t.ln_f, self.lm_head, ids.shape[1], x.shape[-1],
                                 self.lm_head.out_features, embedding_dropout=True)
        return self.lm_head(t.ln_f(x))


def output_layer_activations(first_embedding, last_embedding, final_norm, lm_head, s, h, vocab,
                             embedding_dropout):
    """Korthikanti et al. 2022 s. 4.3 (term list not re-verified against the paper text), the
    parts outside the transformer layers, per sample:
    the embedding dropout mask (sh, 1 byte; charged to the last embedding), the final norm's
    input (2sh), the output projection's input (2sh) and the cross-entropy's fp32 logits (4sv)."""
    first_embedding.collsim_activation_bytes_per_sample = 0
    last_embedding.collsim_activation_bytes_per_sample = s * h if embedding_dropout else 0
    final_norm.collsim_activation_bytes_per_sample = 2 * s * h
    lm_head.collsim_activation_bytes_per_sample = 2 * s * h + 4 * s * vocab


class RMSNorm(nn.Module):
    """Root-mean-square layer norm (Zhang and Sennrich 2019), as Llama's LlamaRMSNorm."""

    def __init__(self, h, eps=1e-5, device=None):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(h, device=device))
        self.eps = eps

    def forward(self, x):
        return self.weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps))


class LlamaDecoderLayer(nn.Module):
    """A Llama 2 decoder layer with Hugging Face LlamaDecoderLayer's names and registration
    order: self_attn.{q,k,v,o}_proj (no biases; k/v have kv_heads x head_dim outputs, GQA),
    mlp.{gate,up,down}_proj (SwiGLU), input_layernorm, post_attention_layernorm (RMSNorm).
    Rotary embeddings have no parameters and negligible FLOPs; they are left out."""

    def __init__(self, h, ffn, heads, kv_heads, device=None):
        super().__init__()
        d = h // heads
        self.self_attn = nn.Module()
        self.self_attn.q_proj = nn.Linear(h, heads * d, bias=False, device=device)
        self.self_attn.k_proj = nn.Linear(h, kv_heads * d, bias=False, device=device)
        self.self_attn.v_proj = nn.Linear(h, kv_heads * d, bias=False, device=device)
        self.self_attn.o_proj = nn.Linear(heads * d, h, bias=False, device=device)
        self.mlp = nn.Module()
        self.mlp.gate_proj = nn.Linear(h, ffn, bias=False, device=device)
        self.mlp.up_proj = nn.Linear(h, ffn, bias=False, device=device)
        self.mlp.down_proj = nn.Linear(ffn, h, bias=False, device=device)
        self.input_layernorm = RMSNorm(h, device=device)
        self.post_attention_layernorm = RMSNorm(h, device=device)
        self.heads, self.kv_heads = heads, kv_heads

    def forward(self, x):
        b, s, h = x.shape
        at, mlp = self.self_attn, self.mlp
        d = h // self.heads
        y = self.input_layernorm(x)
        q = at.q_proj(y).view(b, s, self.heads, d).transpose(1, 2)
        k = at.k_proj(y).view(b, s, self.kv_heads, d).transpose(1, 2)
        v = at.v_proj(y).view(b, s, self.kv_heads, d).transpose(1, 2)
        rep = self.heads // self.kv_heads
        # GQA: each KV head serves `rep` query heads (repeat_interleave, written as expand).
        k, v = (t[:, :, None].expand(b, self.kv_heads, rep, s, d).reshape(b, self.heads, s, d) for t in (k, v))
        mask = torch.ones(s, s, dtype=torch.bool, device=x.device).tril()
        att = (q @ k.transpose(-1, -2) / d ** 0.5).masked_fill(~mask, float("-inf"))
        ctx = (torch.softmax(att, dim=-1) @ v).transpose(1, 2).reshape(b, s, h)
        # Q K^T and att V over all heads: 2 x (2 b s s h) FLOPs (the causal half is counted,
        # as Megatron's and the other workloads' FLOPs do), charged to o_proj.
        at.o_proj.collsim_extra_forward_flops = 4 * b * s * s * h
        # Korthikanti's per-layer count with flash attention (Llama 1 paper s. 2.4: the
        # causal attention of xformers, which stores no attention weights): 34sh per sample.
        t = korthikanti_terms(s, h, self.heads, attention_scores=False)
        self.input_layernorm.collsim_activation_bytes_per_sample = t["norm1"]
        at.q_proj.collsim_activation_bytes_per_sample = t["qkv_input"] + t["q"]
        at.k_proj.collsim_activation_bytes_per_sample = t["k"]
        at.v_proj.collsim_activation_bytes_per_sample = t["v"]
        at.o_proj.collsim_activation_bytes_per_sample = t["out_proj"]
        self.post_attention_layernorm.collsim_activation_bytes_per_sample = t["norm2"]
        mlp.gate_proj.collsim_activation_bytes_per_sample = t["fc1"]
        mlp.up_proj.collsim_activation_bytes_per_sample = t["act"]
        mlp.down_proj.collsim_activation_bytes_per_sample = t["fc2"]
        x = x + at.o_proj(ctx)
        y = self.post_attention_layernorm(x)
        return x + mlp.down_proj(F.silu(mlp.gate_proj(y)) * mlp.up_proj(y))


LLAMA2 = {
    # Touvron et al. 2023, "Llama 2" Table 1 / Hugging Face meta-llama/Llama-2-*-hf config.json.
    "llama2-7b": dict(layers=32, h=4096, ffn=11008, heads=32, kv_heads=32, vocab=32000),
    "llama2-70b": dict(layers=80, h=8192, ffn=28672, heads=64, kv_heads=8, vocab=32000),
}


class LlamaForCausalLM(nn.Module):
    """Llama 2 (Hugging Face LlamaForCausalLM names and order): model.embed_tokens,
    model.layers.N, model.norm, and an untied lm_head. Build it on device="meta" for the
    large sizes: shapes, hooks and autograd work without allocating the weights."""

    def __init__(self, layers, h, ffn, heads, kv_heads, vocab, device=None):
        super().__init__()
        self.model = nn.Module()
        self.model.embed_tokens = nn.Embedding(vocab, h, device=device)
        self.model.layers = nn.ModuleList(
            [LlamaDecoderLayer(h, ffn, heads, kv_heads, device=device) for _ in range(layers)])
        self.model.norm = RMSNorm(h, device=device)
        self.lm_head = nn.Linear(h, vocab, bias=False, device=device)

    def forward(self, ids):
        m = self.model
        x = m.embed_tokens(ids)
        for layer in m.layers:
            x = layer(x)
        # Llama has no dropout: no embedding dropout mask.
        output_layer_activations(m.embed_tokens, m.embed_tokens, m.norm, self.lm_head, ids.shape[1],
                                 x.shape[-1], self.lm_head.out_features, embedding_dropout=False)
        return self.lm_head(m.norm(x))
