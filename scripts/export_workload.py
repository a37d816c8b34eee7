#!/usr/bin/python3
"""Exports a PyTorch nn.Module as a collsim workload JSON file.

What it records:
  * parameters in model.parameters() order (the order DDP buckets them): name, numel,
    dtype, shape, and sparse=true for nn.Embedding/EmbeddingBag(sparse=True);
  * layers: every module that owns parameters directly, in the order the forward pass
    first calls it; each lists the parameters it owns, sorted by the gradient-ready order
    observed in a real backward (post-hooks on the AccumulateGrad nodes, as DDP uses);
  * per-layer compute, either
      --mode flops   (default): forward FLOPs from the layer's input/output shapes
                     (Conv2d, Linear: 2 x MACs (+ bias adds); norms: 5 FLOPs per element,
                     an estimate; embeddings: 0; plus `collsim_extra_forward_flops` a module
                     may set for parameter-free work such as attention matmuls), and
                     backward = 2 x forward (input and weight gradients), 1 x for a layer
                     whose input needs no gradient (only weight gradients), 0 for embeddings;
      --mode measure time measured on the local device (CUDA if present, else CPU),
                     averaged over --iters iterations after --warmup: forward = time from
                     the previous layer's end to this layer's end (parameter-free work in
                     between is charged to the next layer); backward = time between
                     successive gradient-ready events, charged to the layer owning the
                     gradient that became ready;
  * per-layer activation memory, when the model declares it (the built-in transformers do,
    from Korthikanti et al. 2022, see collsim_models.py) or with --saved-activations (the
    tensors autograd saves in one forward, counted once per storage, charged like FLOPs):
    activation_bytes_per_sample (what the layer's forward saves for backward, 16-bit
    activations) and, for every layer,
    checkpoint_bytes_per_sample (its input per sample: floating-point inputs at the compute
    precision's size, integer inputs at their own), which activation checkpointing keeps;
  * buffers (for broadcast_buffers), and the optimizer's HBM traffic per parameter
    (SGD with momentum 24 B: buf = m buf + g reads 8 B writes 4 B, p -= lr buf reads 8 B
    writes 4 B; Adam 40 B: two moment updates read 8 + 8 B write 4 + 4 B, the step reads
    p, m, v (12 B) and writes p (4 B)).

  * --from-trace TRACE: per-layer forward/backward times taken from a torch.profiler trace
    (Chrome trace JSON, Kineto's layout or the legacy profiler's) instead of FLOPs: the GPU
    kernels (CPU ops on a CPU-only trace) run under each layer's module scope, and for
    backward those under the autograd nodes the layer's forward ops created (matched by
    "Sequence number"), averaged over the trace's ProfilerStep#N steps. Module scopes are
    record_function ranges "module::<qualified name>::forward" or, with --module/--model,
    Kineto's "nn.Module: <Class>_<k>" events (with_stack=True). With --workload FILE the
    times go into an existing workload file and torch is not needed. See
    docs/profiler-traces.md.

Built-in models (--model): resnet50 (torchvision), bert-base, bert-large, gpt2-medium,
llama2-7b, llama2-70b (scripts/collsim_models.py; the Llama models are built on the meta
device, so exporting the 70B model allocates no weights). Your own model: --module FILE.py:FACTORY where FACTORY()
returns (model, example_input) with example_input one per-GPU batch.

Examples:
  /usr/bin/python3 scripts/export_workload.py --model resnet50 --batch 64 --saved-activations --out workloads/resnet50.json
  /usr/bin/python3 scripts/export_workload.py --model llama2-7b --batch 2 --seq 4096 --optimizer adam --out workloads/llama2-7b.json
  /usr/bin/python3 scripts/export_workload.py --module mynet.py:make --mode measure --out mynet.json
  /usr/bin/python3 scripts/export_workload.py --module mynet.py:make --from-trace trace.json --out mynet.json
  python3 scripts/export_workload.py --workload mynet.json --from-trace trace.json --out mynet-measured.json
"""
import argparse
import importlib.util
import json
import os
import sys
import time

try:
    import torch
    import torch.nn as nn
except ImportError:  # --workload FILE --from-trace TRACE reads JSON only
    torch = nn = None

OPTIMIZER_BYTES = {"sgd": 24, "adam": 40}
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import profiler_trace  # noqa: E402

if torch is not None:
    import collsim_models  # noqa: E402

    DTYPES = {torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16",
              torch.float64: "float64", torch.int64: "int64", torch.int32: "int32", torch.uint8: "uint8"}
    NORMS = (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d, nn.LayerNorm, nn.GroupNorm, collsim_models.RMSNorm)
FLOAT_BYTES = {"fp32": 4, "tf32": 4, "fp16": 2, "bf16": 2}


def builtin(name, batch, seq):
    """(model, input for one per-GPU batch, description) of a built-in model."""
    cm = collsim_models
    if name in cm.LLAMA2:
        c = cm.LLAMA2[name]
        gqa = f", {c['kv_heads']} KV heads (GQA)" if c["kv_heads"] != c["heads"] else ""
        return (cm.LlamaForCausalLM(**c, device="meta"), torch.randint(0, c["vocab"], (batch, seq)).to("meta"),
                f"Llama 2 {name[7:].upper()} (Touvron et al. 2023; {c['layers']} layers, hidden {c['h']}, SwiGLU FFN "
                f"{c['ffn']}, {c['heads']} heads{gqa}, vocab {c['vocab']}, RMSNorm, untied LM head), sequence "
                f"length {seq}; activations per Korthikanti et al. 2022 with flash attention (34sh per layer)")
    if name == "resnet50":
        import torchvision
        return (torchvision.models.resnet50(), torch.randn(batch, 3, 224, 224),
                "torchvision resnet50 (25,557,032 parameters), 224x224 images")
    if name in ("bert-base", "bert-large"):
        large = name == "bert-large"
        model = cm.BertEncoder(h=1024, layers=24, ffn=4096) if large else cm.BertEncoder()
        for layer in model.encoder.layer:
            layer.heads = 16 if large else 12
        return (model, torch.randint(0, 30522, (batch, seq)),
                f"BERT-{'large' if large else 'base'} encoder with pooler (Hugging Face BertModel layout), "
                f"sequence length {seq}")
    if name == "gpt2-medium":
        return (cm.Gpt2(), torch.randint(0, 50257, (batch, seq)),
                f"GPT-2 medium (24 layers, 1024 hidden, LM head tied to the token embedding), sequence length {seq}")
    raise SystemExit(f"unknown --model {name}")


def load_factory(spec):
    path, _, func = spec.partition(":")
    if not func:
        raise SystemExit("--module expects FILE.py:FACTORY")
    mod_spec = importlib.util.spec_from_file_location("user_model", path)
    mod = importlib.util.module_from_spec(mod_spec)
    mod_spec.loader.exec_module(mod)
    model, example = getattr(mod, func)()
    return model, example, f"{func}() from {os.path.basename(path)}"


def layer_flops(m, inputs, output):
    x = inputs[0] if inputs else None
    out = output[0] if isinstance(output, (tuple, list)) else output
    if isinstance(m, nn.Conv2d):
        macs = out.numel() * (m.in_channels // m.groups) * m.kernel_size[0] * m.kernel_size[1]
        return 2 * macs + (out.numel() if m.bias is not None else 0)
    if isinstance(m, nn.Linear):
        return 2 * out.numel() * m.in_features + (out.numel() if m.bias is not None else 0)
    if isinstance(m, (nn.Embedding, nn.EmbeddingBag)):
        return 0
    if isinstance(m, NORMS):
        return 5 * (x.numel() if x is not None else out.numel())
    print(f"warning: no FLOPs rule for {type(m).__name__}; counted as 0", file=sys.stderr)
    return 0


def saved_activation_bytes(model, example, layers, precision):
    """Per-sample bytes of the tensors autograd saves for backward during one forward, per
    layer: every saved tensor that is not a parameter or buffer, counted once per storage
    (an in-place ReLU's saved output and the next conv's saved input are one tensor), floating
    point at the compute precision's size, integers (max-pool indices) at their own; charged
    to the parameter-owning module running when it is saved, or, for parameter-free work
    between layers, to the next layer (as FLOPs are)."""
    skip = {t.storage().data_ptr() for t in list(model.parameters()) + list(model.buffers())}
    seen, per_layer, state = set(), {n: 0 for n in layers}, {"stack": [], "pending": 0, "last": None}

    def pack(t):
        ptr = t.storage().data_ptr()
        if ptr not in skip and ptr not in seen:
            seen.add(ptr)
            size = FLOAT_BYTES[precision] if t.is_floating_point() else t.element_size()
            if state["stack"]:
                per_layer[state["stack"][-1]] += t.numel() * size
            else:
                state["pending"] += t.numel() * size
        return t

    def pre(name):
        def hook(m, inputs):
            state["stack"].append(name)
            per_layer[name] += state["pending"]
            state["pending"] = 0
        return hook

    def post(m, inputs, output):
        state["last"] = state["stack"].pop()

    handles = [h for n, m in layers.items() for h in (m.register_forward_pre_hook(pre(n)), m.register_forward_hook(post))]
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        model(example)
    for h in handles:
        h.remove()
    if state["last"] is not None:
        per_layer[state["last"]] += state["pending"]  # work after the last layer (e.g. flatten)
    batch = example.shape[0]
    return {n: v // batch for n, v in per_layer.items()}


def grad_ready_order(params):
    """Records (param index, time) as each gradient is accumulated."""
    order = []
    keep = []
    for i, p in enumerate(params):
        acc = p.expand_as(p).grad_fn.next_functions[0][0]
        keep.append(acc)
        acc.register_hook(lambda *unused, i=i: order.append((i, time.perf_counter())))
    return order, keep


def export(model, example, description, args):
    model.train()
    named = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    params = [p for _, p in named]
    # param index -> owning module name (where it is first registered)
    owner = {i: n.rpartition(".")[0] for i, (n, _) in enumerate(named)}
    position = {n: i for i, (n, _) in enumerate(named)}
    sparse = set()
    for m in model.modules():
        if isinstance(m, (nn.Embedding, nn.EmbeddingBag)) and m.sparse:
            sparse.add(id(m.weight))
    layers = {n: m for n, m in model.named_modules() if any(p is not None for p in m._parameters.values())}
    call_order, flops, needs_input_grad, input_bytes = [], {}, {}, {}
    fwd_time = {n: 0.0 for n in layers}
    clock = {"last": 0.0}
    sync = torch.cuda.synchronize if example.is_cuda else (lambda: None)

    def pre(name):
        def hook(m, inputs):
            if name not in flops:
                call_order.append(name)
                flops[name] = 0
                needs_input_grad[name] = any(torch.is_tensor(x) and x.requires_grad for x in inputs)
                x = inputs[0] if inputs and torch.is_tensor(inputs[0]) else None
                if x is not None and x.dim() > 0 and x.shape[0] > 0:
                    size = FLOAT_BYTES[args.precision] if x.is_floating_point() else x.element_size()
                    input_bytes[name] = x.numel() // x.shape[0] * size
        return hook

    def post(name):
        def hook(m, inputs, output):
            flops[name] += layer_flops(m, inputs, output) + getattr(m, "collsim_extra_forward_flops", 0)
            if args.mode == "measure":
                sync()
                now = time.perf_counter()
                fwd_time[name] += now - clock["last"]
                clock["last"] = now
        return hook

    handles = []
    for n, m in layers.items():
        handles.append(m.register_forward_pre_hook(pre(n)))
        handles.append(m.register_forward_hook(post(n)))

    def step():
        clock["last"] = time.perf_counter()
        out = model(example)
        out = out[0] if isinstance(out, (tuple, list)) else out
        sync()
        start = time.perf_counter()
        order.clear()
        out.float().sum().backward()
        sync()
        model.zero_grad(set_to_none=True)
        return start

    order, keep = grad_ready_order(params)
    bwd_time = {n: 0.0 for n in layers}
    runs = 1 if args.mode == "flops" else args.warmup + args.iters
    for it in range(runs):
        if it == args.warmup and args.mode == "measure":
            for n in layers:
                fwd_time[n] = 0.0
                flops[n] = 0
        start = step()
        if args.mode == "measure" and it >= args.warmup:
            last = start
            for i, t in order:
                bwd_time[owner[i]] += t - last
                last = t
    for h in handles:
        h.remove()
    ready = [i for i, _ in order]
    counted = max(1, args.iters) if args.mode == "measure" else 1
    # Modules never called in forward: their gradients never become ready here; place
    # them first in forward order (so last in backward).
    unused = [n for n in layers if n not in call_order]
    if unused:
        print(f"warning: modules with parameters never called in forward: {unused}", file=sys.stderr)
    forward_order = unused + call_order
    rank = {i: k for k, i in enumerate(ready)}
    # Activation fields only when the model declares its activation memory (all-or-nothing:
    # a checkpoint estimate without activations would be meaningless).
    declared = any(hasattr(m, "collsim_activation_bytes_per_sample") for m in layers.values())
    saved = None
    if args.saved_activations:
        with torch.random.fork_rng():
            saved = saved_activation_bytes(model, example, layers, args.precision)
        declared = True
    out_layers = []
    for n in forward_order:
        mine = sorted((i for i, o in owner.items() if o == n), key=lambda i: rank.get(i, -1))
        layer = {"name": n or "(root)", "params": [named[i][0] for i in mine]}
        if args.mode == "measure":
            layer["forward_time"] = f"{fwd_time[n] / counted * 1e6:.3f}us"
            layer["backward_time"] = f"{bwd_time[n] / counted * 1e6:.3f}us"
        else:
            f = flops.get(n, 0)
            m = layers[n]
            if isinstance(m, (nn.Embedding, nn.EmbeddingBag)):
                b = 0
            else:
                b = 2 * f if needs_input_grad.get(n, True) else f
            layer["forward_flops"] = float(f * args.flops_scale)
            layer["backward_flops"] = float(b * args.flops_scale)
        if declared:
            act = saved[n] if saved is not None else getattr(layers[n], "collsim_activation_bytes_per_sample", 0)
            layer["activation_bytes_per_sample"] = int(act)
            layer["checkpoint_bytes_per_sample"] = int(input_bytes.get(n, 0))
        out_layers.append(layer)
    derived = [position[p] for l in reversed(out_layers) for p in l["params"]]
    if derived != ready:
        mism = sum(1 for a, b in zip(derived, ready) if a != b)
        print(f"note: layer order gives a gradient-ready order that differs from the observed one at {mism} of "
              f"{len(ready)} positions", file=sys.stderr)
    else:
        print("gradient-ready order from the layers equals the observed one", file=sys.stderr)
    doc = {
        "name": args.name,
        "description": description,
        "batch_per_gpu": args.batch,
    }
    if args.mode == "measure":
        doc["measured_on"] = torch.cuda.get_device_name() if example.is_cuda else "cpu"
    else:
        doc["compute"] = {"precision": args.precision, "efficiency": args.efficiency}
    doc["optimizer"] = {"kind": args.optimizer, "memory_bytes_per_param": OPTIMIZER_BYTES[args.optimizer]}
    doc["parameters"] = [{"name": n, "numel": p.numel(), "dtype": DTYPES[p.dtype], "shape": list(p.shape) or [1],
                          **({"sparse": True} if id(p) in sparse else {})} for n, p in named]
    doc["layers"] = out_layers
    doc["buffers"] = [{"name": n, "numel": b.numel(), "dtype": DTYPES[b.dtype]} for n, b in model.named_buffers()]
    return doc


def module_labels(model, example):
    """Kineto's python_function labels ("Linear_0": the first Linear called in forward) ->
    qualified module names: one forward with pre-hooks on every module, counted per class in
    first-call order, as torch.profiler numbers them."""
    names = {id(m): n for n, m in model.named_modules()}
    labels, counts, seen = {}, {}, set()

    def hook(m, inputs):
        if id(m) not in seen:
            seen.add(id(m))
            cls = type(m).__name__
            labels[f"{cls}_{counts.get(cls, 0)}"] = names[id(m)]
            counts[cls] = counts.get(cls, 0) + 1

    handles = [m.register_forward_pre_hook(hook) for m in model.modules()]
    with torch.no_grad(), torch.random.fork_rng():
        model(example)
    for h in handles:
        h.remove()
    return labels


def apply_trace(doc, trace, labels=None):
    """Replaces each layer's compute with the forward/backward times of its module scope in
    the profiler trace (profiler_trace.module_times). Exits 2 naming the trace and the layer
    when a layer has no scope in it."""
    try:
        events, trace_doc = profiler_trace.load_events(trace)
    except profiler_trace.TraceError as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(2)
    scope = {("" if l["name"] == "(root)" else l["name"]): l for l in doc["layers"]}
    t = profiler_trace.module_times(events, trace_doc, layers=list(scope), labels=labels)
    missing = [n for n in scope if n not in t["scoped_layers"]]
    if missing:
        print(f"error: {trace}: no module scope for layer(s) {missing}: expected X events named "
              f"\"module::<name>::forward\" (record_function), or Kineto's \"nn.Module: <Class>_<k>\" events "
              f"with --module/--model (docs/profiler-traces.md)", file=sys.stderr)
        sys.exit(2)
    for name, layer in scope.items():
        layer.pop("forward_flops", None)
        layer.pop("backward_flops", None)
        layer["forward_time"] = f"{t['forward'][name]:.3f}us"
        layer["backward_time"] = f"{t['backward'][name]:.3f}us"
    device = t["device"] or ("cpu" if t["source"] == "cpu ops" else "gpu")
    out = {}
    for k, v in doc.items():
        if k == "compute":
            continue  # measured times replace FLOPs
        out[k] = v
        if k == "description":
            out[k] = (f"{v}; layer times from profiler trace {os.path.basename(trace)} ({t['source']}, "
                      f"{t['steps']} step{'s' if t['steps'] != 1 else ''})")
        if k == "batch_per_gpu":
            out["measured_on"] = device
    out.setdefault("measured_on", device)
    print(f"{trace}: layer times from {t['source']} over {t['steps']} step(s); not under any layer's scope "
          f"(parameter-free modules, loss, AccumulateGrad, optimizer): forward {t['unattributed_forward_us']:.3f} us, "
          f"backward {t['unattributed_backward_us']:.3f} us per step", file=sys.stderr)
    return out


def dump(doc):
    """JSON with one parameter, layer or buffer per line."""
    lines = ["{"]
    keys = list(doc)
    for k in keys:
        comma = "," if k != keys[-1] else ""
        v = doc[k]
        if isinstance(v, list):
            lines.append(f"  {json.dumps(k)}: [")
            lines += [f"    {json.dumps(x)}{',' if i + 1 < len(v) else ''}" for i, x in enumerate(v)]
            lines.append(f"  ]{comma}")
        else:
            lines.append(f"  {json.dumps(k)}: {json.dumps(v)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--model", choices=["resnet50", "bert-base", "bert-large", "gpt2-medium", "llama2-7b",
                                         "llama2-70b"])
    src.add_argument("--module", help="FILE.py:FACTORY returning (model, example_input)")
    src.add_argument("--workload", help="an existing workload JSON whose layer times --from-trace fills (no torch)")
    ap.add_argument("--mode", choices=["flops", "measure"], default="flops")
    ap.add_argument("--from-trace", metavar="TRACE",
                    help="torch.profiler Chrome trace JSON: each layer's forward/backward time from the kernels "
                         "(CPU ops on a CPU-only trace) under its module scope (docs/profiler-traces.md)")
    ap.add_argument("--batch", type=int, default=1, help="per-GPU batch (built-in models)")
    ap.add_argument("--seq", type=int, default=512, help="sequence length (built-in transformers)")
    ap.add_argument("--name", help="workload name (default: the model name)")
    ap.add_argument("--precision", choices=["fp32", "tf32", "fp16", "bf16"], default="bf16")
    ap.add_argument("--efficiency", type=float, default=0.5, help="fraction of peak FLOP/s (assumption)")
    ap.add_argument("--optimizer", choices=sorted(OPTIMIZER_BYTES), default="sgd")
    ap.add_argument("--saved-activations", action="store_true",
                    help="activation bytes from the tensors autograd saves in one forward (models that do not "
                         "declare collsim_activation_bytes_per_sample, e.g. resnet50)")
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--iters", type=int, default=5)
    ap.add_argument("--out", help="output file (default: stdout)")
    args = ap.parse_args()
    if args.from_trace and args.mode == "measure":
        ap.error("--from-trace takes the times from the trace: drop --mode measure")
    if args.workload:
        if not args.from_trace:
            ap.error("--workload needs --from-trace TRACE")
        try:
            with open(args.workload) as f:
                base = json.load(f)
            if not isinstance(base.get("layers"), list) or not all(isinstance(l, dict) and "name" in l
                                                                   for l in base["layers"]):
                raise ValueError("layers: expected an array of {name, params, ...}")
        except (OSError, ValueError, AttributeError) as e:
            print(f"error: {args.workload}: {e}", file=sys.stderr)
            sys.exit(2)
        write(apply_trace(base, args.from_trace), args.out)
        return
    if torch is None:
        ap.error("--model/--module need torch (apt-get install python3-torch); --workload FILE --from-trace TRACE does not")
    torch.manual_seed(0)
    args.flops_scale = 1
    if args.model:
        # FLOPs are linear in the batch: count one sample, scale to the batch.
        model, example, description = builtin(args.model, 1 if args.mode == "flops" else args.batch, args.seq)
        if args.mode == "flops":
            args.flops_scale = args.batch
        args.name = args.name or args.model
    else:
        model, example, description = load_factory(args.module)
        args.name = args.name or os.path.splitext(os.path.basename(args.module.partition(":")[0]))[0]
        args.batch = int(example.shape[0]) if torch.is_tensor(example) else args.batch
    if args.mode == "measure" and torch.cuda.is_available():
        model, example = model.cuda(), example.cuda()
    with torch.random.fork_rng():
        doc = export(model, example, description, args)
    if args.from_trace:
        doc = apply_trace(doc, args.from_trace, module_labels(model, example))
    write(doc, args.out)


def write(doc, path):
    text = dump(doc)
    if path:
        with open(path, "w") as f:
            f.write(text)
        total = sum(p["numel"] for p in doc["parameters"])
        print(f"wrote {path}: {len(doc['parameters'])} parameters ({total:,} elements), "
              f"{len(doc['layers'])} layers", file=sys.stderr)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
