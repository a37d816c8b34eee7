#!/usr/bin/python3
"""collsim llm against published Megatron-LM throughput (issue 19, item 6).

For each row of results/validation/llm/published.json (a GPT model, its (t, p, d) layout and
batch, and what its source measured), runs `collsim llm` uncalibrated on DGX A100 nodes with
8 x 200 Gb/s HDR InfiniBand (topologies/4x-dgx-a100-8x200g-ib.json grown to the row's GPUs),
with the row's settings: fp16, Megatron's placement (tp-dp-pp), interleaved 1F1B where the
pipeline has stages, the row's recomputation and sequence parallelism. Compares the per-GPU
TFLOP/s: Narayanan et al. count hardware FLOPs (recompute included) and publish the rate;
Korthikanti et al. publish the iteration time, whose rate is model FLOPs / time. Nothing from
a row's measurement enters its prediction.

Writes summary.md and predictions.json next to published.json, or with --check compares a fresh
run with them and exits 1 on any difference (same input, same bytes).

Usage: scripts/llm_truth.py [--collsim build/collsim] [--check]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIR = os.path.join(ROOT, "results", "validation", "llm")
TOPOLOGY = "4x-dgx-a100-8x200g-ib"


def model_file(row, tmp):
    shape = dict(row["shape"], vocab=51200, sequence=2048, learned_positions=True, biases=True)
    path = os.path.join(tmp, row["id"] + ".json")
    with open(path, "w") as f:
        json.dump({"name": row["id"], "compute": {"precision": "fp16"}, "transformer": shape}, f)
    return path


def chunks(row):
    """The row's model chunks per pipeline rank: published, else 3 or 2 where they divide."""
    if "virtual_stages" in row:
        return row["virtual_stages"]
    if row["pp"] <= 2:
        return 1  # Megatron-LM refuses the interleaved schedule on fewer than 3 stages
    per = row["shape"]["layers"] // row["pp"]
    return 3 if per % 3 == 0 else 2 if per % 2 == 0 else 1


def fusion_flags(row, sources):
    """--no-gradient-accumulation-fusion where the row's source ran without it."""
    return [] if sources[row["source"]]["gradient_accumulation_fusion"] else ["--no-gradient-accumulation-fusion"]


def predict(collsim, row, sources, tmp):
    tp, pp = row["tp"], row["pp"]
    dp = row["gpus"] // (tp * pp)
    v = chunks(row)
    cmd = [collsim, "llm", "--model", model_file(row, tmp), "--topology", TOPOLOGY, "--tp", str(tp), "--pp", str(pp),
           "--dp", str(dp), "--global-batch", str(row["global_batch"]), "--micro-batch", str(row.get("micro_batch", 1)),
           "--recompute", row["recompute"], "--format", "json"]
    if v > 1:
        cmd += ["--schedule", "interleaved", "--virtual-stages", str(v)]
    if row["sequence_parallel"]:
        cmd.append("--sequence-parallel")
    cmd += fusion_flags(row, sources)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    d = json.loads(out)
    gpus = row["gpus"]
    pub = row["published"]
    if "hardware_tflops_per_gpu" in pub:
        published = pub["hardware_tflops_per_gpu"]
        predicted = d["hardware_tflops_per_gpu"]
        kind = "hardware"
    else:
        published = d["model_flops"] / pub["iteration_s"] / gpus / 1e12
        predicted = d["model_tflops_per_gpu"]
        kind = "model"
    return {"id": row["id"], "source": row["source"], "layout": f"t{tp} p{pp} d{dp}" + (f" v{v}" if v > 1 else ""),
            "gpus": gpus, "recompute": row["recompute"], "sequence_parallel": row["sequence_parallel"], "flops": kind,
            "published_tflops_per_gpu": round(published, 2), "predicted_tflops_per_gpu": round(predicted, 2),
            "error_percent": round(100 * (predicted / published - 1), 2), "predicted_step_s": round(d["step_s"], 4),
            "published_iteration_s": pub.get("iteration_s"), "bubble": round(d["bubble_fraction"], 4),
            "memory_gib": round(d["memory_peak_bytes"] / 2**30, 2), "fits": d["fits"]}


def summary(preds, sources):
    lines = ["# collsim llm against published Megatron-LM throughput", "",
             "Written by `scripts/llm_truth.py` from `published.json` (sources, settings and quoted table rows); "
             "`cli.llm_truth` reruns it with `--check`. Uncalibrated: GEMMs at the published maximum achievable matmul "
             "fraction of the A100 (271.2 of 312 TFLOP/s) with wave quantization, elementwise work at HBM bandwidth, "
             "NCCL's collectives played by the flow engine on DGX A100 nodes with 8 x 200 Gb/s HDR InfiniBand.", "",
             "| row | layout | GPUs | recompute | SP | FLOPs | published TFLOP/s/GPU | predicted | error | step (s) | bubble | memory (GiB) |",
             "|---|---|---:|---|---|---|---:|---:|---:|---:|---:|---:|"]
    for p in preds:
        lines.append(f"| {p['id']} | {p['layout']} | {p['gpus']} | {p['recompute']} | {'on' if p['sequence_parallel'] else 'off'} | "
                     f"{p['flops']} | {p['published_tflops_per_gpu']:.1f} | {p['predicted_tflops_per_gpu']:.1f} | "
                     f"{p['error_percent']:+.1f} % | {p['predicted_step_s']:.2f} | {p['bubble']:.3f} | {p['memory_gib']:.1f} |")
    lines.append("")
    for src in sorted({p["source"] for p in preds}):
        errs = [p["error_percent"] for p in preds if p["source"] == src]
        lines.append(f"- {src}: {len(errs)} rows, median error {statistics.median(errs):+.1f} %, "
                     f"median |error| {statistics.median(abs(e) for e in errs):.1f} %")
    errs = [p["error_percent"] for p in preds]
    lines.append(f"- Median |error| over all {len(errs)} rows: {statistics.median(abs(e) for e in errs):.1f} %; "
                 f"{sum(e > 0 for e in errs)} of {len(errs)} rows optimistic (mean {statistics.mean(errs):+.1f} %).")
    lines += ["", "Settings not published, and what collsim assumes:", ""]
    for key, s in sorted(sources.items()):
        lines.append(f"- {key}: {s['not_published']}; weight-gradient accumulation: {s['gradient_accumulation_fusion_why']}.")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--collsim", default=os.path.join(ROOT, "build", "collsim"))
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    with open(os.path.join(DIR, "published.json")) as f:
        pub = json.load(f)
    with tempfile.TemporaryDirectory() as tmp:
        preds = [predict(a.collsim, row, pub["sources"], tmp) for row in pub["rows"]]
    files = {"predictions.json": json.dumps({"rows": preds}, indent=1) + "\n", "summary.md": summary(preds, pub["sources"])}
    if a.check:
        bad = []
        for name, text in files.items():
            with open(os.path.join(DIR, name)) as f:
                if f.read() != text:
                    bad.append(name)
        for line in files["summary.md"].splitlines():
            if line.startswith("- Median"):
                print(line)
        if bad:
            print("differs from the committed results: " + ", ".join(bad), file=sys.stderr)
            return 1
        return 0
    for name, text in files.items():
        with open(os.path.join(DIR, name), "w") as f:
            f.write(text)
    print(files["summary.md"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
