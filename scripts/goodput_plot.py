#!/usr/bin/env python3
"""The PNG of `collsim run --plot FILE`: expected wall time of the run against the
checkpoint interval, from the run's JSON report (argument 1), written to argument 2.
With failure rates: the Monte Carlo means and the closed form;
with a failure trace: the trace's own wall time at each interval. Young's and Daly's
intervals and the one the run used are marked. Bytes are deterministic: Agg backend, fixed
size and DPI, no Software/date metadata. Exit 3 when matplotlib is missing."""
import json
import sys

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError as e:  # collsim reports it and exits 1
    print(f"python3 cannot import matplotlib ({e})")
    sys.exit(3)

METADATA = {"Software": None}


def main(data, png):
    with open(data) as f:
        run = json.load(f)
    search = run.get("interval_search")
    if not search or not search.get("points"):
        print("no interruptions: the run has one checkpoint at the end and no interval to plot")
        return 4
    points = search["points"]
    xs = [p["interval_s"] / 60 for p in points]
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=100)
    if "wall_monte_carlo_s" in points[0]:
        ax.plot(xs, [p["wall_closed_form_s"] / 3600 for p in points], "-", color="black", linewidth=1,
                label="closed form (Daly 2006)")
        ax.plot(xs, [p["wall_monte_carlo_s"] / 3600 for p in points], "o", markersize=4,
                label=f"Monte Carlo mean of {run['runs']} runs")
        title = f"{run['gpus']} GPUs, job MTBF {run['job_mtbf_s'] / 3600:.2f} h"
        ylabel = "expected wall time (h)"
    else:
        ax.step(xs, [p["wall_s"] / 3600 for p in points], where="mid", label="the trace's history")
        title = f"{run['gpus']} GPUs, failure trace (job MTBF {search['job_mtbf_s'] / 3600:.2f} h)"
        ylabel = "wall time with the trace's interruptions (h)"
    for key, style, name in (("young_s", ":", "Young"), ("daly_s", "--", "Daly")):
        ax.axvline(search[key] / 60, linestyle=style, color="gray", label=f"{name}: {search[key] / 60:.1f} min")
    used = run["checkpoint_interval_s"] / 60
    ax.axvline(used, color="red", linewidth=1, label=f"used: {used:.1f} min")
    ax.set_xscale("log")
    ax.set_xlabel("checkpoint interval (minutes of training)")
    ax.set_ylabel(ylabel)
    ax.set_title(f"{title}; goodput {100 * run['goodput']:.1f} %")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(png, metadata=METADATA)
    plt.close(fig)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print("usage: goodput_plot.py RUN.json OUT.png")
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
