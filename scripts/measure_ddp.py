#!/usr/bin/python3
"""Real PyTorch DDP measurement for `collsim validate` (harness JSON lines, kind "ddp").

One process per host. Works under torchrun (RANK/WORLD_SIZE/MASTER_ADDR from the
environment) or with explicit --rank/--world/--init-method. Gloo on CPU (one thread per
rank by default), nccl when --backend nccl and GPUs exist. Synthetic data, a model given
by name:
  mlp:1024x2048x2048x1024   Linear layers of those widths with ReLU between (input 1024)
  resnet18 / resnet50 ...   torchvision models (if torchvision is installed), --image-size

For each --bucket-cap-mb value a fresh DDP wrapper (same initial weights) runs --warmup
untimed and --iters timed iterations; rank 0 writes one JSON line with the mean/median/
spread of iteration time (us), DDP's bucket layout (construction and rebuilt, bytes), per
bucket all-reduce start/end relative to the iteration start (a communication hook that
times the default all-reduce future), and per-layer forward/backward compute measured on a
local, non-DDP copy (module hooks, averaged over --profile-iters).

Each record also embeds, under "workload", the model as a collsim workload (the format of
workloads/*.json), exported by scripts/export_workload.py's method on the same local copy
(--mode measure: parameters in DDP order, layers with measured forward/backward times),
with the optimizer step replaced by its measured time; and "memory_bandwidth_gbps", the
measured copy bandwidth of this host ((read + write bytes) / time of a tensor copy of the
gradients' size), which `collsim validate` uses for DDP's bucket copies. So a record is
predicted without any other file: `collsim validate --measured RECORDS`.

Times are wall-clock (time.perf_counter), in microseconds.
"""
import argparse
import json
import os
import statistics
import sys
import time


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rank", type=int, default=None)
    p.add_argument("--world", type=int, default=None)
    p.add_argument("--init-method", default=None, help="tcp://ADDR:PORT (default: env:// under torchrun)")
    p.add_argument("--backend", default="gloo", choices=["gloo", "nccl"])
    p.add_argument("--iface", default=None, help="network interface for gloo (sets GLOO_SOCKET_IFNAME)")
    p.add_argument("--model", default="mlp:1024x2048x2048x1024")
    p.add_argument("--image-size", type=int, default=64, help="input height/width for vision models")
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--bucket-cap-mb", default="25", help="comma list, e.g. 1,5,25,100")
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--iters", type=int, default=10)
    p.add_argument("--profile-iters", type=int, default=3)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--timeout", type=float, default=120.0, help="seconds before a collective gives up")
    p.add_argument("--label", default=None)
    p.add_argument("--topology", default=None, help="topology file this run matches (copied into records)")
    p.add_argument("--output", default=None, help="append records here instead of stdout")
    return p.parse_args()


def fail(msg):
    print(f"measure_ddp.py: error: {msg}", file=sys.stderr)
    sys.exit(2)


def build_model(torch, spec, image_size):
    """Returns (model, input shape without batch, output size)."""
    nn = torch.nn
    if spec.startswith("mlp:"):
        try:
            widths = [int(w) for w in spec[4:].split("x")]
        except ValueError:
            fail(f"--model {spec}: expected mlp:W0xW1x...xWn with integer widths")
        if len(widths) < 2 or min(widths) < 1:
            fail(f"--model {spec}: an MLP needs at least two positive widths")
        layers = []
        for i in range(len(widths) - 1):
            layers.append(nn.Linear(widths[i], widths[i + 1]))
            if i < len(widths) - 2:
                layers.append(nn.ReLU())
        return nn.Sequential(*layers), (widths[0],), widths[-1]
    try:
        import torchvision.models as tvm
    except ImportError:
        fail(f"--model {spec}: torchvision is not installed (use an mlp:... model)")
    if not hasattr(tvm, spec):
        fail(f"--model {spec}: not an mlp:... spec nor a torchvision model name")
    return getattr(tvm, spec)(num_classes=1000), (3, image_size, image_size), 1000


def profile_layers(torch, model, x, y, iters):
    """Per leaf module: forward time (pre-hook to hook) and backward time (from the end of
    the previous module's backward, in backward order, to this module's grad-input hook)."""
    leaves = [(n, m) for n, m in model.named_modules() if len(list(m.children())) == 0]
    fwd = {n: [] for n, _ in leaves}
    bwd = {n: [] for n, _ in leaves}
    marks = {}
    handles = []
    for name, mod in leaves:
        handles.append(mod.register_forward_pre_hook(lambda m, i, n=name: marks.__setitem__(("f", n), time.perf_counter())))
        handles.append(mod.register_forward_hook(
            lambda m, i, o, n=name: fwd[n].append(time.perf_counter() - marks[("f", n)])))
        handles.append(mod.register_full_backward_hook(
            lambda m, gi, go, n=name: marks.__setitem__(("b", n), time.perf_counter())))
    loss_fn = torch.nn.MSELoss()
    for i in range(iters + 1):  # the first pass warms allocators and is not recorded
        if i == 1:
            for v in list(fwd.values()) + list(bwd.values()):
                v.clear()
        marks.clear()
        model.zero_grad(set_to_none=True)
        out = model(x)
        loss = loss_fn(out, y)
        t_bwd = time.perf_counter()
        loss.backward()
        done = sorted((t, n) for (k, n), t in marks.items() if k == "b")
        prev = t_bwd
        for t, n in done:
            bwd[n].append(t - prev)
            prev = t
    for h in handles:
        h.remove()
    layers = []
    for name, mod in leaves:
        params = sum(p.numel() for p in mod.parameters(recurse=False))
        pbytes = sum(p.numel() * p.element_size() for p in mod.parameters(recurse=False))
        layers.append({
            "name": name,
            "type": type(mod).__name__,
            "params": params,
            "param_bytes": pbytes,
            "forward_us": round(statistics.mean(fwd[name]) * 1e6, 3) if fwd[name] else 0.0,
            "backward_us": round(statistics.mean(bwd[name]) * 1e6, 3) if bwd[name] else 0.0,
        })
    return layers


def measure_workload(torch, model, x, args):
    """The model as a collsim workload with measured times (export_workload.py's method),
    plus the measured SGD step (the optimizer DDP runs below) instead of a traffic estimate."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import export_workload
    ns = argparse.Namespace(mode="measure", warmup=1, iters=max(1, args.profile_iters), name=args.model,
                            batch=args.batch_size, optimizer="sgd", precision="fp32", efficiency=0.5, flops_scale=1,
                            saved_activations=False)
    with torch.random.fork_rng():
        doc = export_workload.export(model, x, f"{args.model} measured by measure_ddp.py", ns)
    # The optimizer step as timed below (SGD, no momentum), after a backward fills the grads.
    opt = torch.optim.SGD(model.parameters(), lr=1e-4)
    steps = []
    for i in range(args.profile_iters + 1):
        model.zero_grad(set_to_none=True)
        model(x).float().sum().backward()
        t0 = time.perf_counter()
        opt.step()
        if i > 0:
            steps.append(time.perf_counter() - t0)
    model.zero_grad(set_to_none=True)
    opt_us = statistics.median(steps) * 1e6
    doc["optimizer"] = {"kind": "sgd", "time": f"{opt_us:.3f}us"}
    return doc, opt_us


def copy_bandwidth(torch, numel, device, reps=5):
    """(read + write) bytes per second of a float32 tensor copy of `numel` elements on
    `device` (median of `reps`)."""
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    src = torch.randn(max(numel, 1)).to(device)
    dst = torch.empty_like(src)
    dst.copy_(src)
    times = []
    for _ in range(reps):
        sync()
        t0 = time.perf_counter()
        dst.copy_(src)
        sync()
        times.append(time.perf_counter() - t0)
    return 2 * src.numel() * src.element_size() / statistics.median(times)


def bucket_sizes(value):
    """DDP logging data gives bucket sizes as a list or a comma-separated string."""
    if value is None:
        return []
    if isinstance(value, str):
        return [int(v) for v in value.replace(" ", "").split(",") if v]
    return [int(v) for v in value]


def main():
    args = parse_args()
    if args.iface:
        os.environ["GLOO_SOCKET_IFNAME"] = args.iface
    try:
        import torch
        import torch.distributed as dist
        from torch.nn.parallel import DistributedDataParallel as DDP
    except ImportError as e:
        fail(f"PyTorch is not importable ({e}); install python3-torch (scripts/setup.sh --python)")
    import datetime

    torch.set_num_threads(args.threads)
    caps = []
    for c in args.bucket_cap_mb.split(","):
        try:
            caps.append(float(c))
        except ValueError:
            fail(f"--bucket-cap-mb: '{c}' is not a number")
        if caps[-1] <= 0:
            fail(f"--bucket-cap-mb: {c} must be positive")
    if args.iters < 1 or args.warmup < 0:
        fail("--iters must be >= 1 and --warmup >= 0")

    if args.init_method is None and "RANK" not in os.environ:
        fail("no --init-method and not under torchrun (RANK unset)")
    init = args.init_method or "env://"
    kwargs = {"backend": args.backend, "init_method": init, "timeout": datetime.timedelta(seconds=args.timeout)}
    if args.init_method is not None:
        if args.rank is None or args.world is None:
            fail("--init-method needs --rank and --world")
        kwargs.update(rank=args.rank, world_size=args.world)
    try:
        dist.init_process_group(**kwargs)
    except Exception as e:  # rendezvous timeout, refused connection, bad address
        fail(f"init_process_group({init}) failed: {e}")
    rank, world = dist.get_rank(), dist.get_world_size()
    device = torch.device("cuda", rank % max(torch.cuda.device_count(), 1)) if args.backend == "nccl" else torch.device("cpu")

    torch.manual_seed(1234)
    base, in_shape, out_size = build_model(torch, args.model, args.image_size)
    base = base.to(device)
    initial = {k: v.clone() for k, v in base.state_dict().items()}
    params = sum(p.numel() for p in base.parameters())
    gen = torch.Generator().manual_seed(99 + rank)
    x = torch.randn((args.batch_size,) + in_shape, generator=gen).to(device)
    y = torch.randn((args.batch_size, out_size), generator=gen).to(device)
    layers = profile_layers(torch, base, x, y, args.profile_iters)
    workload, optimizer_us = measure_workload(torch, base, x, args)
    membw = copy_bandwidth(torch, params, device)

    out = open(args.output, "a") if (rank == 0 and args.output) else sys.stdout
    loss_fn = torch.nn.MSELoss()
    for cap in caps:
        # A fresh module per cap (DDP's reducer hooks stay on the parameters it wrapped).
        local = build_model(torch, args.model, args.image_size)[0].to(device)
        local.load_state_dict(initial)
        model = DDP(local, bucket_cap_mb=cap, device_ids=[device.index] if device.type == "cuda" else None)
        events = []  # (iteration, bucket index, start, end, bytes)
        it_box = [0, 0.0]  # current iteration, its start time

        def timing_hook(state, bucket):
            t0 = time.perf_counter()
            tensor = bucket.buffer()
            tensor.div_(world)
            fut = dist.all_reduce(tensor, async_op=True).get_future()
            it, start, idx, nbytes = it_box[0], it_box[1], bucket.index(), tensor.numel() * tensor.element_size()

            def done(f):
                events.append((it, idx, t0 - start, time.perf_counter() - start, nbytes))
                return f.value()[0]

            return fut.then(done)

        model.register_comm_hook(None, timing_hook)
        opt = torch.optim.SGD(model.parameters(), lr=1e-4)
        times = []
        for i in range(args.warmup + args.iters):
            if device.type == "cuda":
                torch.cuda.synchronize()
            t0 = time.perf_counter()
            it_box[0], it_box[1] = i, t0
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            if device.type == "cuda":
                torch.cuda.synchronize()
            if i >= args.warmup:
                times.append(time.perf_counter() - t0)
        info = model._get_ddp_logging_data()
        dist.barrier()
        if rank == 0:
            us = [t * 1e6 for t in times]
            timed = [e for e in events if e[0] >= args.warmup]
            per_bucket = {}
            for it, idx, s, e, nb in timed:
                per_bucket.setdefault(idx, []).append((s, e, nb))
            bucket_allreduce = [{
                "bucket": idx,
                "bytes": v[0][2],
                "start_us": round(statistics.mean(s for s, _, _ in v) * 1e6, 3),
                "end_us": round(statistics.mean(e for _, e, _ in v) * 1e6, 3),
            } for idx, v in sorted(per_bucket.items())]
            rec = {
                "kind": "ddp",
                "source": "measure_ddp.py",
                "model": args.model,
                "ranks": world,
                "bucket_cap_mb": cap,
                "backend": args.backend,
                "torch": torch.__version__,
                "device": device.type,
                "threads": args.threads,
                "batch_size": args.batch_size,
                "parameters": params,
                "warmup": args.warmup,
                "iterations": args.iters,
                "time_us": round(statistics.mean(us), 3),
                "median_us": round(statistics.median(us), 3),
                "min_us": round(min(us), 3),
                "max_us": round(max(us), 3),
                "stddev_us": round(statistics.stdev(us), 3) if len(us) > 1 else 0.0,
                "iteration_us": [round(u, 3) for u in us],
                "buckets": bucket_sizes(info.get("bucket_sizes")),
                "rebuilt_buckets": bucket_sizes(info.get("rebuilt_bucket_sizes")),
                "bucket_allreduce": bucket_allreduce,
                "layers": layers,
                "optimizer_us": round(optimizer_us, 3),
                "memory_bandwidth_gbps": round(membw / 1e9, 4),
                "workload": workload,
            }
            if args.label:
                rec["label"] = args.label
            if args.topology:
                rec["topology"] = args.topology
            out.write(json.dumps(rec) + "\n")
            out.flush()
        del model, local
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
