"""Per-module forward/backward time from a PyTorch profiler trace (Chrome trace JSON written
by torch.profiler's export_chrome_trace: Kineto's layout, or the legacy profiler's).

No torch needed: this reads the JSON only. Used by export_workload.py --from-trace.

What counts, per layer (a module that owns parameters):
  * module scopes: X events named "module::<qualified name>::forward" (record_function
    ranges, e.g. from forward hooks; see docs/profiler-traces.md) or Kineto's python_function
    events "nn.Module: <Class>_<k>" (torch.profiler with_stack=True) when the caller maps those
    labels to qualified names (it needs the model; export_workload.py --module does that);
  * work items: on a GPU trace (any "kernel" event) each kernel, placed where the CPU op that
    launched it ran (its "External id", else its "correlation" with the cuda_runtime launch);
    on a CPU-only trace each top-level CPU op (one not inside another CPU op of its thread);
  * forward: a work item inside a layer's scope counts for the innermost such layer;
  * backward: a work item inside "autograd::engine::evaluate_function: XBackward0" counts for
    the layer whose scope held the forward op that created that node: the backward event's
    "Sequence number" equals the one the forward op recorded (the last op, in start order,
    that recorded it created the node);
  * several steps: times are divided by the number of "ProfilerStep#N" annotations (1 if none).
Work that no layer owns (parameter-free modules, the loss, AccumulateGrad, the optimizer) is
totalled as unattributed.
"""
import json
import re

SCOPE = re.compile(r"^module::(.+)::forward$")
NN_MODULE = re.compile(r"^nn\.Module: (.+)$")
STEP = re.compile(r"^ProfilerStep#\d+$")
BACKWARD = "autograd::engine::evaluate_function: "
CPU_OP_CATS = {"cpu_op", "operator"}
KERNEL_CATS = {"kernel"}
RUNTIME_CATS = {"cuda_runtime", "runtime"}
SCOPE_CATS = {"user_annotation", "python_function", "gpu_user_annotation"}


class TraceError(Exception):
    """Bad input: the message names the file, the field and what was expected."""


def load_events(path):
    """The trace's X events, each checked: name, pid, tid, ts and dur (us)."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise TraceError(f"{path}: cannot read as JSON ({e})")
    events = doc.get("traceEvents") if isinstance(doc, dict) else doc
    if not isinstance(events, list):
        raise TraceError(f"{path}: traceEvents: expected an array of trace events")
    out = []
    for i, e in enumerate(events):
        if not isinstance(e, dict) or e.get("ph") != "X":
            continue
        for key, kinds in (("name", str), ("ts", (int, float)), ("dur", (int, float))):
            if not isinstance(e.get(key), kinds) or isinstance(e.get(key), bool):
                raise TraceError(f"{path}: traceEvents[{i}].{key}: expected a "
                                 f"{'string' if key == 'name' else 'number (us)'}, got {e.get(key)!r}")
        if e["dur"] < 0:
            raise TraceError(f"{path}: traceEvents[{i}].dur: expected a duration >= 0, got {e['dur']}")
        out.append(dict(e, _index=i, _end=e["ts"] + e["dur"], _thread=(str(e.get("pid")), str(e.get("tid")))))
    return out, (doc if isinstance(doc, dict) else {})


def category(e):
    return str(e.get("cat", "")).lower()


def innermost(items, intervals, accept):
    """For each item, the innermost interval of its thread that contains it and satisfies
    `accept` (or None). Intervals nest within a thread (profiler ranges do)."""
    by_thread = {}
    for iv in intervals:
        by_thread.setdefault(iv["_thread"], []).append(iv)
    result = {it["_index"]: None for it in items}
    for thread, ivs in by_thread.items():
        ivs.sort(key=lambda iv: (iv["ts"], -iv["_end"], iv["_index"]))
        mine = sorted((it for it in items if it["_thread"] == thread), key=lambda it: (it["ts"], -it["_end"], it["_index"]))
        stack, k = [], 0
        for it in mine:
            while k < len(ivs) and (ivs[k]["ts"], -ivs[k]["_end"], ivs[k]["_index"]) <= (it["ts"], -it["_end"], it["_index"]):
                while stack and stack[-1]["_end"] <= ivs[k]["ts"]:
                    stack.pop()
                stack.append(ivs[k])
                k += 1
            while stack and stack[-1]["_end"] <= it["ts"] and stack[-1]["dur"] > 0:
                stack.pop()
            found = None
            for iv in reversed(stack):
                if iv is not it and iv["ts"] <= it["ts"] and it["_end"] <= iv["_end"] and accept(iv):
                    found = iv
                    break
            result[it["_index"]] = found
    return result


def module_times(events, doc=None, layers=None, labels=None):
    """{"source", "steps", "forward": {layer: us}, "backward": {layer: us}, "unattributed_forward_us",
    "unattributed_backward_us"}. `layers`: the names to report (default: every scope seen);
    `labels`: {"Linear_0": "0", ...} for Kineto's "nn.Module: <label>" events."""
    labels = labels or {}
    scopes, cpu_ops, kernels, runtime, steps = [], [], [], [], 0
    for e in events:
        cat, name = category(e), e["name"]
        m = SCOPE.match(name)
        n = NN_MODULE.match(name) if cat == "python_function" else None
        if m:
            scopes.append(dict(e, _module=m.group(1)))
        elif n and n.group(1) in labels:
            scopes.append(dict(e, _module=labels[n.group(1)]))
        elif STEP.match(name):
            steps += 1
        elif cat in KERNEL_CATS:
            kernels.append(e)
        elif cat in RUNTIME_CATS:
            runtime.append(e)
        elif cat in CPU_OP_CATS or (not cat and not name.startswith("nn.Module: ")):
            cpu_ops.append(e)
        # other categories (python_function frames, memory, flows, gpu annotations) do not count
    wanted = set(layers) if layers is not None else {s["_module"] for s in scopes}
    steps = max(1, steps)
    # Backward nodes: the top-level evaluate_function events; forward ops are the others.
    backward_fns = [e for e in cpu_ops if e["name"].startswith(BACKWARD)]
    in_backward = innermost(cpu_ops, backward_fns, lambda iv: True)
    for e in backward_fns:
        in_backward[e["_index"]] = e
    forward_ops = [e for e in cpu_ops if in_backward[e["_index"]] is None]
    scope_of = innermost(forward_ops, scopes, lambda iv: iv["_module"] in wanted)
    creator = {}
    for e in sorted(forward_ops, key=lambda e: (e["ts"], e["_index"])):
        seq = e.get("args", {}).get("Sequence number")
        if isinstance(seq, int) and seq >= 0:
            creator[seq] = e  # the last op (in start order) that recorded it created the node

    def place(op):
        """("forward" | "backward", layer or None) for a CPU op."""
        fn = in_backward[op["_index"]]
        if fn is None:
            s = scope_of[op["_index"]]
            return "forward", s["_module"] if s else None
        fwd = creator.get(fn.get("args", {}).get("Sequence number"))
        s = scope_of.get(fwd["_index"]) if fwd else None
        return "backward", s["_module"] if s else None

    totals = {"forward": {n: 0.0 for n in sorted(wanted)}, "backward": {n: 0.0 for n in sorted(wanted)}}
    unattributed = {"forward": 0.0, "backward": 0.0}
    if kernels:
        source = "kernels"
        by_ext = {}
        for e in cpu_ops:
            ext = e.get("args", {}).get("External id")
            if ext is not None:
                by_ext.setdefault(ext, e)
        launches = {e.get("args", {}).get("correlation"): e for e in runtime}
        launch_op = innermost(list(launches.values()), cpu_ops, lambda iv: True)
        work = []
        for k in kernels:
            args = k.get("args", {})
            op = by_ext.get(args.get("External id"))
            if op is None and args.get("correlation") in launches:
                op = launch_op.get(launches[args["correlation"]]["_index"])
            work.append((k["dur"], place(op) if op else ("forward", None)))
    else:
        source = "cpu ops"
        top = innermost(cpu_ops, cpu_ops, lambda iv: True)
        work = [(e["dur"], place(e)) for e in cpu_ops if top[e["_index"]] is None]
    for dur, (pass_, layer) in work:
        if layer is None:
            unattributed[pass_] += dur
        else:
            totals[pass_][layer] += dur
    device = None
    for p in (doc or {}).get("deviceProperties", []) or []:
        if isinstance(p, dict) and p.get("name"):
            device = p["name"]
            break
    return {"source": source, "steps": steps, "device": device,
            "forward": {n: v / steps for n, v in totals["forward"].items()},
            "backward": {n: v / steps for n, v in totals["backward"].items()},
            "unattributed_forward_us": unattributed["forward"] / steps,
            "unattributed_backward_us": unattributed["backward"] / steps,
            "scoped_layers": sorted({s["_module"] for s in scopes} & wanted)}
