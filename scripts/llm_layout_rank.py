#!/usr/bin/python3
"""Where the planner ranks Megatron-LM's published layouts (issue 19, acceptance 1).

For each row of results/validation/llm/published.json from Narayanan et al. 2021 Table 1 on at
most --max-gpus GPUs, runs `collsim llm --search` on the row's model, GPU count and global
batch, on DGX A100 nodes with 8 x 200 Gb/s HDR InfiniBand, under the paper's settings
(fp16, full recompute, no sequence parallelism, no distributed optimizer; micro-batch and
interleaving searched, since the paper does not give them). Layouts are ranked by their best
fitting row (any micro-batch and interleaving) and the published (t, p, d) layout's rank is
reported. Then the same search for the question of the paper's Figure 13 (section 5.4.1): a
162.2B GPT on 64 GPUs at global batch 32 and 128, where the paper finds tensor parallelism
across a server's 8 GPUs and pipeline parallelism across servers (t8 p8) fastest. Writes
layout_rank.md next to published.json, or with --check compares a fresh run with it and
exits 1 on any difference.

Usage: scripts/llm_layout_rank.py [--collsim build/collsim] [--max-gpus 512] [--check]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIR = os.path.join(ROOT, "results", "validation", "llm")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from llm_truth import TOPOLOGY, fusion_flags, model_file  # noqa: E402


# Narayanan et al. 2021, section 5.4.1, Figure 13: "a GPT model with 162.2 billion parameters and
# 64 A100 GPUs", (pipeline, tensor) sizes (2, 32) to (32, 2) at batch 32 and 128; the text's
# finding: peak throughput where the tensor-parallel size is a server's GPU count (8), the rest
# pipeline. Shape: 32 layers, hidden 20480, 128 heads (162.2B with vocabulary 51200 and
# sequence 2048); settings as Table 1's (fp16, full recompute, Megatron-LM of April 2021).
FIGURE13 = {"id": "narayanan-fig13-162.2b", "source": "narayanan2021", "gpus": 64, "batches": [32, 128],
            "recompute": "full", "published": (8, 8, 1),
            "shape": {"layers": 32, "hidden": 20480, "heads": 128}}


def ranked(collsim, row, sources, tmp, batch=None):
    cmd = [collsim, "llm", "--search", "--model", model_file(row, tmp), "--topology", TOPOLOGY, "--gpus", str(row["gpus"]),
           "--global-batch", str(batch or row["global_batch"]), "--recompute", row["recompute"], "--no-sequence-parallel",
           "--no-distributed-optimizer", "--top", "100000", "--format", "json"] + fusion_flags(row, sources)
    d = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    best = {}
    for r in d["layouts"]:
        if not r["fits"]:
            continue
        key = (r["tp"], r["pp"], r["dp"])
        if key not in best or r["step_s"] < best[key]["step_s"]:
            best[key] = r
    order = sorted(best.values(), key=lambda r: (r["step_s"], r["tp"], r["pp"]))
    return d["evaluated"], order


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--collsim", default=os.path.join(ROOT, "build", "collsim"))
    ap.add_argument("--max-gpus", type=int, default=512)
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    pub_doc = json.load(open(os.path.join(DIR, "published.json")))
    rows = pub_doc["rows"]
    rows = [r for r in rows if r["source"] == "narayanan2021" and r["gpus"] <= a.max_gpus]
    lines = ["# Where collsim's planner ranks Megatron-LM's published layouts", "",
             "Written by `scripts/llm_layout_rank.py`: `collsim llm --search` on each row of Narayanan et al. 2021 "
             "Table 1 up to {} GPUs (DGX A100, 8 x 200G HDR; fp16, full recompute, no SP, no distributed optimizer "
             "and no gradient-accumulation fusion as in the paper's Megatron-LM; micro-batch and interleaving searched). Layouts (t, p, d) are ranked by their "
             "fastest fitting row.".format(a.max_gpus), "",
             "| row | GPUs | published layout | its rank | layouts | collsim's top 3 (step s) | published predicted (s) |",
             "|---|---:|---|---:|---:|---|---:|"]
    in_top3 = 0
    with tempfile.TemporaryDirectory() as tmp:
        for row in rows:
            evaluated, order = ranked(a.collsim, row, pub_doc["sources"], tmp)
            dp = row["gpus"] // (row["tp"] * row["pp"])
            pub = (row["tp"], row["pp"], dp)
            pos = next((i + 1 for i, r in enumerate(order) if (r["tp"], r["pp"], r["dp"]) == pub), None)
            in_top3 += pos is not None and pos <= 3
            top = ", ".join(f"t{r['tp']} p{r['pp']} d{r['dp']} ({r['step_s']:.2f})" for r in order[:3])
            pub_s = next((f"{r['step_s']:.2f}" for r in order if (r["tp"], r["pp"], r["dp"]) == pub), "-")
            lines.append(f"| {row['id']} | {row['gpus']} | t{pub[0]} p{pub[1]} d{pub[2]} | {pos if pos else 'not fitting'} | "
                         f"{len(order)} of {evaluated} rows | {top} | {pub_s} |")
        lines += ["", f"The published layout is in collsim's top 3 for {in_top3} of {len(rows)} rows.", "",
                  "## The question of the paper's Figure 13", "",
                  "Narayanan et al. 2021, section 5.4.1, Figure 13: a 162.2B GPT (32 layers, hidden 20480, 128 heads) on "
                  "64 A100s, tensor and pipeline parallelism combined; the paper finds t8 p8 (TP over a server's 8 GPUs, "
                  "pipeline across servers) fastest. The same search as above on 64 GPUs (TP stays inside a host, so "
                  "the figure's t16 and t32 are not tried):", "",
                  "| global batch | paper's best | its rank | layouts | collsim's top 3 (step s) |",
                  "|---:|---|---:|---:|---|"]
        fig = FIGURE13
        for batch in fig["batches"]:
            evaluated, order = ranked(a.collsim, fig, pub_doc["sources"], tmp, batch)
            pos = next((i + 1 for i, r in enumerate(order) if (r["tp"], r["pp"], r["dp"]) == fig["published"]), None)
            top = ", ".join(f"t{r['tp']} p{r['pp']} d{r['dp']} ({r['step_s']:.2f})" for r in order[:3])
            t, p, d = fig["published"]
            lines.append(f"| {batch} | t{t} p{p} d{d} | {pos if pos else 'not fitting'} | {len(order)} of {evaluated} rows "
                         f"| {top} |")
    text = "\n".join(lines) + "\n"
    path = os.path.join(DIR, "layout_rank.md")
    if a.check:
        if open(path).read() != text:
            sys.exit(f"{path} differs from a fresh run:\n{text}")
        print(f"{path}: unchanged")
        return
    with open(path, "w") as f:
        f.write(text)
    print(text, end="")


if __name__ == "__main__":
    main()
