#!/usr/bin/python3
"""Calibration that transfers (issue 13): fit NCCL's constants on a 2-host nccl-tests log,
predict more hosts of the same system.

For each 2-host, 8-GPU-per-host log of the development set (tests/data/nccl-tests/dev/),
runs `collsim validate --calibrate` on it (with the NCCL variables its command line sets,
as scripts/validate_nccl_dev.sh passes them), writes the same system with 2, 4, 8 and 16
hosts (the log's topology with its cluster generator's host count changed), and predicts an
all-reduce of 1 MiB, 64 MiB and 1 GiB on each, uncalibrated and calibrated. Writes
results/validation/nccl/calibration/: SYSTEM.json (the fitted calibration),
topologies/SYSTEM-N-hosts.json and transfer.md. Only the 2-host rows have measurements; the
larger ones are predictions, for lack of public logs of the same systems at that scale.

Usage: scripts/nccl_calibration_transfer.py [--collsim build/collsim]
"""
import argparse
import json
import math
import os
import re
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOGS = os.path.join("tests", "data", "nccl-tests", "dev")
OUT = os.path.join("results", "validation", "nccl", "calibration")
SYSTEMS = [  # short name, development log (without .txt)
    ("p4d-efa", "a100sxm40x8_2nodes_aws_p4d_efa_4x100g_allreduce_oldformat"),
    ("a3-mega-tcpxo", "h100x8_2nodes_gcp_a3mega_allreduce"),
    ("xe9680-ib", "h100x8_2nodes_hgx_xe9680_8x400g_ib_allreduce_nccltests309_a"),
]
HOSTS = [2, 4, 8, 16]
SIZES = [("1 MiB", 1 << 20), ("64 MiB", 1 << 26), ("1 GiB", 1 << 30)]
MODELLED = r"NCCL_(ALGO|PROTO|MIN_NCHANNELS|MAX_NCHANNELS|NVLS_ENABLE|CROSS_NIC|P2P_DISABLE|P2P_LEVEL|NET_GDR_LEVEL)=[^ ]+"


def run(collsim, args):
    r = subprocess.run([collsim] + args, cwd=ROOT, capture_output=True, text=True)
    if r.returncode not in (0, 1):
        raise SystemExit(f"collsim {' '.join(args)} exited {r.returncode}:\n{r.stderr}")
    return r.stdout


def knobs_of(log_path):
    with open(os.path.join(ROOT, log_path)) as f:
        command = next((line for line in f if line.startswith("# command")), "")
    return " ".join(m.group(0) for m in re.finditer(MODELLED, command))


def log_errors(rows):
    """ln G over sizes >= 1 MiB and max |error| below 64 KiB, issue 13's two figures."""
    big = [abs(math.log(r["predicted_us"] / r["measured_us"])) for r in rows if r["size_bytes"] >= 1 << 20]
    small = [abs(r["error"]) for r in rows if r["size_bytes"] < 1 << 16]
    return (sum(big) / len(big) if big else None), (max(small) if small else None)


def fmt(v, pattern):
    return "-" if v is None else pattern.format(v)


def scaled_topology(log_topology, short, hosts):
    with open(os.path.join(ROOT, log_topology)) as f:
        t = json.load(f)
    t["name"] = f"{short}-{hosts}-hosts"
    t["description"] = (f"{hosts} hosts of the system of {os.path.basename(log_topology)} (written by "
                        f"scripts/nccl_calibration_transfer.py: that topology with its generator's host count set "
                        f"to {hosts}). " + t["description"])
    t["generator"]["hosts"] = hosts
    path = os.path.join(OUT, "topologies", f"{short}-{hosts}-hosts.json")
    with open(os.path.join(ROOT, path), "w") as f:
        json.dump(t, f, indent=2)
        f.write("\n")
    return path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--collsim", default=os.path.join(ROOT, "build", "collsim"))
    a = ap.parse_args()
    collsim = os.path.abspath(a.collsim)
    os.makedirs(os.path.join(ROOT, OUT, "topologies"), exist_ok=True)
    md = ["# Calibration that transfers: fitted on 2 hosts, predicting 16", "",
          "Written by `scripts/nccl_calibration_transfer.py`. For each 2-host development log, `collsim validate "
          "--calibrate` fits NCCL's constants on it (the network's link efficiency, per protocol the network's step "
          "latency and LL's and LL128's efficiency: [measurement-and-validation.md]"
          "(../../../../docs/measurement-and-validation.md#collsim-validate)); the calibration then predicts the same "
          "system with more hosts. Only the 2-host rows are measured: no public log of these systems at 4 to 16 "
          "hosts is in the repository, so the larger rows show what the calibration carries, not its error.", ""]
    for short, log in SYSTEMS:
        log_path = os.path.join(LOGS, log + ".txt")
        topology = os.path.join(LOGS, "topologies", log + ".json")
        knobs = knobs_of(log_path)
        env = ["--nccl-env", knobs] if knobs else []
        cal = os.path.join(OUT, short + ".json")
        fit = run(collsim, ["validate", "--measured", log_path, "--topology", topology] + env + ["--calibrate", cal])
        errors = {}
        for name, extra in (("uncalibrated", []), ("calibrated", ["--calibration", cal])):
            out = run(collsim, ["validate", "--measured", log_path, "--topology", topology] + env + extra +
                      ["--tolerance", "1000%", "--median-tolerance", "1000%", "--format", "json"])
            errors[name] = log_errors(json.loads(out)["rows"])
        md += [f"## {short}", "", f"Log `{log_path}`{' run with ' + knobs if knobs else ''}; calibration "
               f"`{cal}`. The fit (`collsim validate --calibrate`):", "", "```text"]
        md += [line for line in fit.splitlines() if not line.startswith("calibrated from")] + ["```", ""]
        md += ["| 2 hosts, measured log | ln G, sizes >= 1 MiB | max \\|error\\|, sizes < 64 KiB |", "|---|---:|---:|"]
        for name in ("uncalibrated", "calibrated"):
            g, small = errors[name]
            md.append(f"| {name} | {fmt(g, '{:.4f}')} | {fmt(small, '{:.1%}')} |")
        md += ["", "All-reduce bus bandwidth (GB/s) predicted by `collsim collective`, uncalibrated / calibrated:", "",
               "| hosts | GPUs | " + " | ".join(s for s, _ in SIZES) + " |", "|---:|---:|" + "---:|" * len(SIZES)]
        for hosts in HOSTS:
            topo = scaled_topology(topology, short, hosts)
            busbw = []
            for extra in ([], ["--calibration", cal]):
                out = run(collsim, ["collective", "--topology", topo, "--sizes", ",".join(f"{b}B" for _, b in SIZES),
                                    "--format", "json"] + env + extra)
                busbw.append([r["busbw_gbps"] for r in json.loads(out)["rows"]])
            cells = [f"{u:.1f} / {c:.1f}" for u, c in zip(*busbw)]
            md.append(f"| {hosts} | {hosts * 8} | " + " | ".join(cells) + " |")
        md.append("")
    with open(os.path.join(ROOT, OUT, "transfer.md"), "w") as f:
        f.write("\n".join(md))
    print(f"wrote {OUT}/transfer.md, {len(SYSTEMS)} calibrations and {len(SYSTEMS) * len(HOSTS)} topologies")


if __name__ == "__main__":
    main()
