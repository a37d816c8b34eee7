#!/usr/bin/env python3
"""Projects the wall time of a collsim-mpi plan on many nodes from measured item costs.

Reads a journal written by `collsim plan --jobs 1 --journal FILE` (one line per item with
its wall time in seconds and its key "candidate/world") and rank 0's measured cost per
result, then simulates collsim-mpi's dynamic distribution for plans of M items on P nodes
of C cores (one item thread per core):

- items are drawn from the measured costs (seeded resampling, with their world sizes, so
  heavy and light items keep their mix) and handed out heaviest first, as MpiRunner does;
- a thread that finishes an item sends its result to rank 0, which handles results one
  at a time (gather_s each, measured), and gets its next item once rank 0 has answered;
- per-core speed is this machine's.

Prints a Markdown section: the measured distribution, the projected wall time per node
count and plan size, and the largest mean item cost at which 64 nodes finish a
1,000,000-item plan within an hour. Deterministic for a given seed.

Usage: project_distributed.py JOURNAL GATHER_S [--cores 64] [--seed 1]
"""

import argparse
import heapq
import json
import random
import statistics
import sys

NODES = [16, 32, 64, 128, 256]
PLAN_ITEMS = [10_000, 100_000, 1_000_000]
HOUR = 3600.0


def read_items(path):
    items = []
    with open(path, encoding="utf-8") as f:
        header = json.loads(f.readline())
        if "collsim_journal" not in header:
            sys.exit(f"{path}: line 1: not a collsim journal")
        for number, line in enumerate(f, start=2):
            j = json.loads(line)
            world = int(j["key"].rsplit("/", 1)[1])
            items.append((float(j["seconds"]), world))
    if not items:
        sys.exit(f"{path}: no finished items")
    return items


def makespan(costs, threads, gather_s):
    """Wall time of `costs` (already in hand-out order) on `threads` threads with one
    serial rank-0 server that spends gather_s on each request, in arrival order."""
    items = iter(costs)
    finishes = []  # when each running item's result reaches rank 0
    server = 0.0  # when rank 0 is next free
    # Every thread's first request, answered one after the other.
    for _ in range(min(threads, len(costs))):
        server += gather_s
        heapq.heappush(finishes, server + next(items))
    end = 0.0
    while finishes:
        done = heapq.heappop(finishes)
        # Rank 0 takes the result and answers with the thread's next item.
        server = max(server, done) + gather_s
        end = server
        c = next(items, None)
        if c is not None:
            heapq.heappush(finishes, server + c)
    return end


def plan_costs(items, m, rng, scale=1.0):
    drawn = [items[rng.randrange(len(items))] for _ in range(m)]
    drawn.sort(key=lambda cw: -cw[1])  # heaviest (largest world size) first, stable
    return [c * scale for c, _ in drawn]


def hours(s):
    return f"{s / HOUR:.2f} h" if s >= HOUR else f"{s / 60:.1f} min"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("journal")
    ap.add_argument("gather_s", type=float)
    ap.add_argument("--cores", type=int, default=64)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    items = read_items(a.journal)
    costs = sorted(c for c, _ in items)
    mean = statistics.fmean(costs)
    q = statistics.quantiles(costs, n=20, method="inclusive")
    print("### Per-item cost (measured, one thread)\n")
    print(f"{len(costs)} items: mean {mean:.3f} s, median {statistics.median(costs):.3f} s, "
          f"p5 {q[0]:.3f} s, p95 {q[-1]:.3f} s, max {costs[-1]:.3f} s, total {sum(costs):.1f} s.\n")
    print("| world size | items | mean s | max s |\n|---:|---:|---:|---:|")
    for w in sorted({w for _, w in items}):
        cw = [c for c, ww in items if ww == w]
        print(f"| {w} | {len(cw)} | {statistics.fmean(cw):.3f} | {max(cw):.3f} |")
    print(f"\nRank 0 spends {a.gather_s * 1e6:.0f} us per result (measured); at most "
          f"{1 / a.gather_s:,.0f} results/s whatever the node count.\n")

    print(f"### Projected wall time ({a.cores} cores per node, one item thread per core)\n")
    print("| nodes | " + " | ".join(f"{m:,} items" for m in PLAN_ITEMS) + " |")
    print("|---:|" + "---:|" * len(PLAN_ITEMS))
    for p in NODES:
        row = []
        for m in PLAN_ITEMS:
            rng = random.Random(a.seed * 1000 + m)
            row.append(hours(makespan(plan_costs(items, m, rng), p * a.cores, a.gather_s)))
        print(f"| {p} | " + " | ".join(row) + " |")

    # The largest scale of this distribution (mean item cost) that 64 nodes finish 10^6
    # items of within an hour: bisection on the simulated makespan.
    m, p = 1_000_000, 64
    rng_seed = a.seed * 1000 + m
    lo, hi = 0.0, 4.0 * HOUR * p * a.cores / m / mean
    for _ in range(30):
        mid = (lo + hi) / 2
        t = makespan(plan_costs(items, m, random.Random(rng_seed), mid), p * a.cores, a.gather_s)
        lo, hi = (mid, hi) if t <= HOUR else (lo, mid)
    limit = lo * mean
    base = makespan(plan_costs(items, m, random.Random(rng_seed)), p * a.cores, a.gather_s)
    print(f"\n### 1,000,000 items on 64 nodes within an hour\n")
    print(f"With this plan's mix of items (mean {mean:.3f} s), 10^6 items take {hours(base)} on 64 nodes. "
          f"They finish within an hour while the mean item cost is at most **{limit:.3f} s** "
          f"({lo:.2f}x this plan's items; the perfectly divided bound is "
          f"{HOUR * p * a.cores / m:.3f} s).")
    per_world = {}
    for c, w in items:
        per_world.setdefault(w, []).append(c)
    fits = [w for w in sorted(per_world) if statistics.fmean(per_world[w]) <= limit]
    if fits:
        print(f"Of this plan's items, world sizes up to {max(fits):,} GPUs cost that or less on average: a plan of "
              f"10^6 items of clusters up to {max(fits):,} GPUs fits in the hour on 64 nodes.")
    else:
        print("None of this plan's world sizes is that cheap on average.")
    print(f"In an hour, 64 nodes finish about {int(m * min(1.0, HOUR / base)):,} items of this plan's mix.")


if __name__ == "__main__":
    main()
