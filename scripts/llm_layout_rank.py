#!/usr/bin/python3
"""Where the planner ranks Megatron-LM's published layouts (issue 19, acceptance 1).

For each row of results/validation/llm/published.json from Narayanan et al. 2021 Table 1 on at
most --max-gpus GPUs, runs `collsim llm --search` on the row's model, GPU count and global
batch, on DGX A100 nodes with 8 x 200 Gb/s HDR InfiniBand, under the paper's settings
(fp16, full recompute, no sequence parallelism, no distributed optimizer; micro-batch and
interleaving searched, since the paper does not give them). Layouts are ranked by their best
fitting row (any micro-batch and interleaving) and the published (t, p, d) layout's rank is
reported. Writes layout_rank.md next to published.json, or with --check compares a fresh run
with it and exits 1 on any difference.

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


def ranked(collsim, row, sources, tmp):
    cmd = [collsim, "llm", "--search", "--model", model_file(row, tmp), "--topology", TOPOLOGY, "--gpus", str(row["gpus"]),
           "--global-batch", str(row["global_batch"]), "--recompute", row["recompute"], "--no-sequence-parallel",
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
    lines += ["", f"The published layout is in collsim's top 3 for {in_top3} of {len(rows)} rows."]
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
