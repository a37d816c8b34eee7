#!/usr/bin/python3
"""Writes a synthetic failure trace for `collsim run --failure-trace` (docs/file-formats.md):
interruption times drawn as a Poisson process, each with a cause drawn from given weights.
Nothing in it is measured; the description says how it was made.

The defaults reproduce examples/failure-traces/llama3-rate-synthetic.json: the rate of the
Llama 3 report ("The Llama 3 Herd of Models", 2024, section 3.3.4: 419 unexpected
interruptions in a 54-day snapshot on up to 16,384 H100 GPUs), and its cause counts where
that report names them (faulty GPU 148, GPU HBM3 memory 72, network switch or cable 35, GPU
SRAM memory 19, GPU system processor 17, CPU 2) and "other" for the remaining 126.

Example:
  /usr/bin/python3 scripts/make_failure_trace.py --seed 1 \\
      --out examples/failure-traces/llama3-rate-synthetic.json
"""
import argparse
import json
import random

LLAMA3_CAUSES = [
    ("faulty GPU", 148),
    ("GPU HBM3 memory", 72),
    ("network switch or cable", 35),
    ("GPU SRAM memory", 19),
    ("GPU system processor", 17),
    ("CPU", 2),
    ("other", 126),
]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--days", type=float, default=54.0, help="length of the trace")
    p.add_argument("--interruptions", type=int, default=419, help="expected interruptions over --days")
    p.add_argument("--out", required=True)
    a = p.parse_args()

    rng = random.Random(a.seed)
    end_s = a.days * 86400
    rate = a.interruptions / end_s
    names = [c for c, _ in LLAMA3_CAUSES]
    weights = [w for _, w in LLAMA3_CAUSES]
    events, t, last = [], 0.0, None
    while True:
        t += rng.expovariate(rate)
        if t >= end_s:
            break
        at = f"{t:.1f}s"
        if at == last:  # two draws within 0.1 s: one interruption at a time
            continue
        last = at
        events.append({"at": at, "cause": rng.choices(names, weights)[0]})
    doc = {
        "description": (
            f"SYNTHETIC, not measured: scripts/make_failure_trace.py --seed {a.seed} --days {a.days:g} "
            f"--interruptions {a.interruptions}. Exponential times at the job-level rate of the Llama 3 report "
            f"(419 unexpected interruptions in 54 days on up to 16,384 H100 GPUs, section 3.3.4; one per "
            f"{end_s / a.interruptions / 3600:.2f} h), causes drawn with that report's counts where it names "
            f"them (faulty GPU 148, HBM3 72, network 35, SRAM 19, GPU system processor 17, CPU 2, \"other\" for the remaining 126)."
        ),
        "end": f"{a.days:g}d",
        "interruptions": events,
    }
    with open(a.out, "w") as f:
        f.write("{\n")
        f.write(f'  "description": {json.dumps(doc["description"])},\n')
        f.write(f'  "end": {json.dumps(doc["end"])},\n')
        f.write('  "interruptions": [\n')
        f.write(",\n".join("    " + json.dumps(e) for e in events))
        f.write("\n  ]\n}\n")
    print(f"{a.out}: {len(events)} interruptions in {a.days:g} days")


if __name__ == "__main__":
    main()
