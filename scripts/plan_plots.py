#!/usr/bin/env python3
"""PNG plots of a `collsim plan` report folder: reads DIR/plan.json, writes one strong-
scaling curve per candidate (samples/s against GPUs, one line per workload and strategy)
and cost against step time per workload, then prints the PNG names it wrote. Bytes are
deterministic: Agg backend, fixed size and DPI, no Software/date metadata.
Exit 3 when matplotlib is missing (collsim reports that in report.md)."""
import json
import os
import re
import sys

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import ScalarFormatter
except ImportError as e:  # collsim says so in report.md and on stderr
    print(f"python3 cannot import matplotlib ({e})")
    sys.exit(3)

# Same hash seed, same SVG ids, no timestamps: PNG carries only what savefig is given.
matplotlib.rcParams["svg.hashsalt"] = "collsim"
METADATA = {"Software": None}


def slug(s):
    return re.sub(r"[^A-Za-z0-9]+", "-", s).strip("-").lower()


def main(folder):
    with open(os.path.join(folder, "plan.json")) as f:
        plan = json.load(f)
    rows = plan["rows"]
    written = []
    for cand in plan["candidates"]:
        name = cand["name"]
        fig, ax = plt.subplots(figsize=(7, 4.5), dpi=100)
        series = {}
        for r in rows:
            if r["candidate"] != name or r["samples_per_s"] is None:
                continue
            series.setdefault((r["workload"], r["strategy"]), []).append(r)
        for (workload, strategy), pts in series.items():
            xs = [p["gpus"] for p in pts]
            ys = [p["samples_per_s"] for p in pts]
            line, = ax.plot(xs, ys, marker="o", label=f"{workload} {strategy}")
            unfit = [p for p in pts if p["status"] != "ok"]
            if unfit:
                ax.plot([p["gpus"] for p in unfit], [p["samples_per_s"] for p in unfit], "x", color="red", markersize=9)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        worlds = sorted({p["gpus"] for pts in series.values() for p in pts})
        if worlds:
            ax.set_xticks(worlds)
        ax.xaxis.set_major_formatter(ScalarFormatter())
        ax.xaxis.set_minor_formatter(ScalarFormatter())
        ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
        ax.set_xlabel("GPUs")
        ax.set_ylabel("samples/s (fixed global batch)")
        ax.set_title(f"Strong scaling on {name} (red x: does not fit)")
        ax.grid(True, which="both", alpha=0.3)
        if series:
            ax.legend(fontsize=7)
        fig.tight_layout()
        out = f"scaling-{slug(name)}.png"
        fig.savefig(os.path.join(folder, out), metadata=METADATA)
        plt.close(fig)
        written.append(out)
    workloads = []
    for r in rows:
        if r["workload"] not in workloads:
            workloads.append(r["workload"])
    fig, axes = plt.subplots(1, max(1, len(workloads)), figsize=(6 * max(1, len(workloads)), 4.5), dpi=100, squeeze=False)
    for ax, workload in zip(axes[0], workloads):
        for cand in plan["candidates"]:
            pts = [r for r in rows if r["workload"] == workload and r["candidate"] == cand["name"] and r["status"] == "ok"]
            if pts:
                ax.scatter([p["step_ms"] for p in pts], [p["cost_per_m_samples"] for p in pts], label=cand["name"], s=18)
        pareto = sorted((r for r in rows if r["workload"] == workload and r["pareto"]), key=lambda r: r["step_ms"])
        if pareto:
            ax.plot([p["step_ms"] for p in pareto], [p["cost_per_m_samples"] for p in pareto], "k--", linewidth=1, label="Pareto-best")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ok = [r for r in rows if r["workload"] == workload and r["status"] == "ok"]
        for axis, key in ((ax.xaxis, "step_ms"), (ax.yaxis, "cost_per_m_samples")):
            values = [r[key] for r in ok if r[key] and r[key] > 0]
            # Plain numbers; minor ticks labelled only when the data spans under a decade.
            narrow = bool(values) and max(values) < 10 * min(values)
            axis.set_major_formatter(ScalarFormatter())
            axis.set_minor_formatter(ScalarFormatter() if narrow else matplotlib.ticker.NullFormatter())
        ax.set_xlabel("step time (ms)")
        ax.set_ylabel(f"cost per million samples ({plan['currency']})")
        ax.set_title(workload)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(folder, "cost-vs-time.png"), metadata=METADATA)
    plt.close(fig)
    written.append("cost-vs-time.png")
    for w in written:
        print(w)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: plan_plots.py REPORT_DIR")
        sys.exit(2)
    main(sys.argv[1])
