#!/usr/bin/python3
"""Writes OUT/summary.md and OUT/<system>.png from the `collsim validate --format json`
outputs that scripts/validate_nccl_dev.sh left in OUT/raw/<system>.json (one per nccl-tests
log of the development set, tests/data/nccl-tests/dev/<system>.txt).

Per system (a log; a log holding several runs gets one table per run): size | measured |
predicted | error, error = predicted / measured - 1; then the two acceptance figures:
  - over sizes >= 1 MiB, G = exp(mean |ln(predicted / measured)|), the geometric mean of
    the error factor (max(r, 1/r)); target ln G <= ln(1.10), i.e. within 10 % on average;
  - over sizes < 64 KiB, max |error|; target <= 30 %.
Plots: bus bandwidth (nccl-tests definition: size / time x busbw factor) of measured and
predicted rows against size, both axes logarithmic. Bytes are deterministic: Agg backend,
fixed size and DPI, no Software/date metadata, rows in file order.

  scripts/nccl_dev_report.py --raw OUT/raw --logs tests/data/nccl-tests/dev --out OUT [--note TEXT]...
Exit 3 when matplotlib is missing (the summary is still written)."""
import argparse
import json
import math
import os
import re
import sys

SMALL = 64 * 1024        # "small sizes": below 64 KiB
LARGE = 1024 * 1024      # "large sizes": 1 MiB and up
GEOMEAN_TARGET = math.log(1.10)
SMALL_TARGET = 0.30

# nccl-tests busbw factors (docs/algorithms.md, "Collectives and sizes"), n ranks.
BUSBW_FACTOR = {
    "allreduce": lambda n: 2.0 * (n - 1) / n,
    "reducescatter": lambda n: (n - 1) / n,
    "allgather": lambda n: (n - 1) / n,
    "alltoall": lambda n: (n - 1) / n,
    "broadcast": lambda n: 1.0,
    "reduce": lambda n: 1.0,
}
RUN_MARKER = re.compile(r"^#\s*---\s*(run\s+\w+)\s*:\s*(.*?)\s*-*\s*$", re.IGNORECASE)


def size_label(b):
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= scale and b % scale == 0:
            return f"{b // scale} {unit}"
    return f"{b} B"


def run_markers(log_path):
    """(line number, label, description) of each '# --- run X: ... ---' comment."""
    markers = []
    with open(log_path) as f:
        for number, line in enumerate(f, start=1):
            m = RUN_MARKER.match(line)
            if m:
                markers.append((number, m.group(1), m.group(2)))
    return markers


def split_runs(rows, markers):
    """Rows grouped by run: by the log's run markers when it has them, else one run."""
    if not markers:
        return [("", "", rows)]
    runs = []
    for i, (line, label, desc) in enumerate(markers):
        end = markers[i + 1][0] if i + 1 < len(markers) else math.inf
        mine = [r for r in rows if line < r["line"] < end]
        if mine:
            runs.append((label, desc, mine))
    return runs


def metrics(rows):
    large = [abs(math.log(r["predicted_us"] / r["measured_us"])) for r in rows
             if r["size_bytes"] >= LARGE and r["predicted_us"] and r["measured_us"]]
    small = [abs(r["error"]) for r in rows if r["size_bytes"] < SMALL and r["error"] is not None]
    return {
        "large_rows": len(large),
        "ln_geomean": sum(large) / len(large) if large else None,
        "small_rows": len(small),
        "small_max": max(small) if small else None,
    }


def verdict(value, target):
    if value is None:
        return "nothing to judge"
    return "meets" if value <= target else "misses"


def read_system(raw_path, log_path):
    with open(raw_path) as f:
        data = json.load(f)
    rows = []
    for r in data["rows"]:
        if r.get("kind") != "collective" or r.get("predicted_us") is None:
            continue
        source, _, line = r["source"].rpartition(":")
        op = r["case"].split()[0]
        rows.append({
            "line": int(line),
            "op": op,
            "ranks": r["ranks"],
            "algorithm": r.get("algorithm", ""),
            "size_bytes": r["size_bytes"],
            "measured_us": r["measured_us"],
            "predicted_us": r["predicted_us"],
            "error": r["error"],
        })
    return rows, split_runs(rows, run_markers(log_path))


def busbw(row, time_us):
    factor = BUSBW_FACTOR.get(row["op"], lambda n: 1.0)(row["ranks"])
    return row["size_bytes"] / (time_us * 1e-6) * factor / 1e9


def table(rows):
    out = ["| size | measured (us) | predicted (us) | error |", "|---:|---:|---:|---:|"]
    for r in rows:
        out.append(f"| {size_label(r['size_bytes'])} | {r['measured_us']:.2f} | {r['predicted_us']:.2f} | "
                   f"{100 * r['error']:+.1f} % |")
    return out


def rows_word(n):
    return f"{n} row" if n == 1 else f"{n} rows"


def cell(text, value, target):
    return text if value is None else f"{text}: {verdict(value, target)}"


def fmt_geomean(m):
    if m["ln_geomean"] is None:
        return "no rows >= 1 MiB"
    return f"{m['ln_geomean']:.4f} (G = {math.exp(m['ln_geomean']):.3f}, {rows_word(m['large_rows'])})"


def fmt_small(m):
    if m["small_max"] is None:
        return "no rows < 64 KiB"
    return f"{100 * m['small_max']:.1f} % ({rows_word(m['small_rows'])})"


def plot(system, runs, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker
    matplotlib.rcParams["svg.hashsalt"] = "collsim"
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=100)
    colors = ["tab:blue", "tab:orange", "tab:green", "tab:red"]
    drawn = {}  # predicted series already drawn -> its line (runs on one topology coincide)
    for i, (label, _desc, rows) in enumerate(runs):
        c = colors[i % len(colors)]
        prefix = f"{label}: " if label else ""
        xs = [r["size_bytes"] for r in rows]
        ax.plot(xs, [busbw(r, r["measured_us"]) for r in rows], marker="o", markersize=3, color=c,
                label=f"{prefix}measured")
        key = tuple((r["size_bytes"], r["predicted_us"]) for r in rows)
        if key in drawn:
            line = drawn[key]
            line.set_label(line.get_label().replace(": predicted", f", {label}: predicted"))
            continue
        drawn[key], = ax.plot(xs, [busbw(r, r["predicted_us"]) for r in rows], marker="x", markersize=4,
                              linestyle="--", color=c, label=f"{prefix}predicted ({rows[0]['algorithm']})")
    lo = min(r["size_bytes"] for _l, _d, rows in runs for r in rows)
    hi = max(r["size_bytes"] for _l, _d, rows in runs for r in rows)
    ticks = [1 << k for k in range(0, 41, 3) if lo <= (1 << k) <= hi] or [lo, hi]
    ax.set_xscale("log", base=2)
    ax.set_xticks(ticks)
    ax.set_xticklabels([size_label(t) for t in ticks], fontsize=8)
    ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    ax.set_yscale("log")
    ax.set_xlabel("size (bytes)")
    ax.set_ylabel("bus bandwidth (GB/s)")
    op, n = runs[0][2][0]["op"], runs[0][2][0]["ranks"]
    ax.set_title(f"{system}\n{op}, {n} ranks", fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--raw", required=True)
    ap.add_argument("--logs", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--note", action="append", default=[], help="a line for the summary's header (repeatable)")
    ap.add_argument("--exit-code", action="append", default=[], metavar="SYSTEM=RC",
                    help="validate's exit code for a system (0: every row within tolerance, 1: some beyond)")
    args = ap.parse_args()
    systems = sorted(f[:-5] for f in os.listdir(args.raw) if f.endswith(".json"))
    exit_codes = dict(e.split("=", 1) for e in args.exit_code)
    md = ["# nccl-tests development set: collsim's predictions against the real logs", "",
          "Generated by `scripts/validate_nccl_dev.sh` (tables: `scripts/nccl_dev_report.py`); "
          "logs, topologies and their sources: `tests/data/nccl-tests/dev/README.md`. "
          "Error = predicted / measured - 1 (out-of-place time). These are the current model's "
          "errors, nothing tuned to them.", ""]
    md += [f"- {n}" for n in args.note]
    md += ["", "Acceptance targets (issue 13):", "",
           f"- sizes >= 1 MiB: G = exp(mean |ln(predicted / measured)|), the geometric mean of the error "
           f"factor, within 10 %: ln G <= ln(1.10) = {GEOMEAN_TARGET:.4f};",
           f"- sizes < 64 KiB: max |error| <= {100 * SMALL_TARGET:.0f} %.", "",
           "## Overview", "",
           "| system | run | op, ranks | algorithm | validate exit | rows | ln G, sizes >= 1 MiB | "
           "max \\|error\\|, sizes < 64 KiB |",
           "|---|---|---|---|---:|---:|---|---|"]
    details = []
    plots = []
    for system in systems:
        rows, runs = read_system(os.path.join(args.raw, system + ".json"), os.path.join(args.logs, system + ".txt"))
        details += [f"## {system}", "",
                    f"Log `tests/data/nccl-tests/dev/{system}.txt`, topology "
                    f"`tests/data/nccl-tests/dev/topologies/{system}.json`, plot `{system}.png`.", ""]
        if not rows:
            md.append(f"| {system} | | | | {exit_codes.get(system, '')} | 0 | no rows predicted | |")
            details += ["No row was predicted.", ""]
            continue
        for label, desc, run_rows in runs:
            m = metrics(run_rows)
            first = run_rows[0]
            md.append(f"| {system} | {label or '-'} | {first['op']}, {first['ranks']} | {first['algorithm']} | "
                      f"{exit_codes.get(system, '')} | {len(run_rows)} | {cell(fmt_geomean(m), m['ln_geomean'], GEOMEAN_TARGET)} | "
                      f"{cell(fmt_small(m), m['small_max'], SMALL_TARGET)} |")
            if label:
                details += [f"### {label}: {desc}", ""]
            details += [f"{first['op']}, {first['ranks']} ranks, algorithm {first['algorithm']}.", ""]
            details += table(run_rows)
            details += ["",
                        f"- ln G over sizes >= 1 MiB: {fmt_geomean(m)}; target <= {GEOMEAN_TARGET:.4f}: "
                        f"{verdict(m['ln_geomean'], GEOMEAN_TARGET)}",
                        f"- max |error| over sizes < 64 KiB: {fmt_small(m)}; target <= {100 * SMALL_TARGET:.0f} %: "
                        f"{verdict(m['small_max'], SMALL_TARGET)}", ""]
        plots.append((system, runs))
    md += [""] + details
    with open(os.path.join(args.out, "summary.md"), "w") as f:
        f.write("\n".join(md).rstrip() + "\n")
    try:
        import matplotlib  # noqa: F401
    except ImportError as e:
        print(f"python3 cannot import matplotlib ({e}): no plots", file=sys.stderr)
        return 3
    for system, runs in plots:
        plot(system, runs, os.path.join(args.out, system + ".png"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
