#!/usr/bin/python3
"""Profiles a model's training steps on CPU with torch.profiler and writes the trace that
tests/cli/trace_import.sh reads (tests/data/traces/tiny_model_cpu.json).

Every module's forward runs inside record_function("module::<qualified name>::forward")
(forward pre/post hooks), each step inside record_function("ProfilerStep#N"), as
torch.profiler.schedule would mark it. The events are written in Kineto's Chrome trace
layout ("cat": "cpu_op" / "user_annotation"; args "External id", "Sequence number",
"Fwd thread id"): Debian's torch 1.13 is built without Kineto, and its legacy
export_chrome_trace drops the sequence numbers that tie backward ops to forward ops, so the
events are taken from prof.events() (the same profiler records) instead.

Example:
  /usr/bin/python3 scripts/make_profiler_trace.py --module tests/data/tiny_model.py:make \\
      --out tests/data/traces/tiny_model_cpu.json
"""
import argparse
import importlib.util
import json

import torch
from torch.profiler import ProfilerActivity, profile, record_function


def load_factory(spec):
    path, _, func = spec.partition(":")
    mod_spec = importlib.util.spec_from_file_location("user_model", path)
    mod = importlib.util.module_from_spec(mod_spec)
    mod_spec.loader.exec_module(mod)
    return getattr(mod, func)()


def add_scopes(model):
    """record_function ranges around every module's forward."""
    def pre(name):
        def hook(m, inputs):
            m._collsim_scopes = getattr(m, "_collsim_scopes", [])
            m._collsim_scopes.append(record_function(f"module::{name}::forward"))
            m._collsim_scopes[-1].__enter__()
        return hook

    def post(m, inputs, output):
        m._collsim_scopes.pop().__exit__(None, None, None)

    for name, m in model.named_modules():
        m.register_forward_pre_hook(pre(name))
        m.register_forward_hook(post)


def kineto_events(prof):
    """prof.events() as Kineto-layout X events, in start order (us, as the profiler gives)."""
    out, step = [], 0
    for e in sorted(prof.events(), key=lambda e: (e.time_range.start, -e.time_range.end, e.id)):
        name = e.name
        if name == "ProfilerStep*":  # the profiler folds "ProfilerStep#N" names; Kineto writes them
            name, step = f"ProfilerStep#{step}", step + 1
        scope = name.startswith("module::") or name.startswith("ProfilerStep#")
        args = {"External id": e.id}
        if e.sequence_nr >= 0:
            args["Sequence number"] = e.sequence_nr
            args["Fwd thread id"] = e.fwd_thread
        out.append({"ph": "X", "cat": "user_annotation" if scope else "cpu_op", "name": name, "pid": 1,
                    "tid": e.thread, "ts": e.time_range.start, "dur": e.time_range.end - e.time_range.start,
                    "args": args})
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--module", required=True, help="FILE.py:FACTORY returning (model, example_input)")
    ap.add_argument("--steps", type=int, default=2, help="profiled steps (after --warmup)")
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    torch.set_num_threads(1)
    model, example = load_factory(args.module)
    model.train()
    add_scopes(model)

    def step():
        model(example).float().sum().backward()
        model.zero_grad(set_to_none=True)

    for _ in range(args.warmup):
        step()
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for i in range(args.steps):
            with record_function(f"ProfilerStep#{i}"):
                step()
    events = kineto_events(prof)
    with open(args.out, "w") as f:
        f.write('{"schemaVersion": 1, "deviceProperties": [], "displayTimeUnit": "ms", "traceEvents": [\n')
        f.write(",\n".join(json.dumps(e, separators=(",", ":")) for e in events))
        f.write("\n]}\n")
    print(f"wrote {args.out}: {len(events)} events over {args.steps} steps", flush=True)


if __name__ == "__main__":
    main()
