"""The collsim Python package: every entry point against the CLI's own output, dicts as
files, and bad input with the CLI's message and exit code. Run by ctest (python.pytest)
with PYTHONPATH=build/python, COLLSIM (the collsim binary) and COLLSIM_SOURCE_DIR."""

import json
import os
import subprocess

import pytest

import collsim

CLI = os.environ["COLLSIM"]
SRC = os.environ["COLLSIM_SOURCE_DIR"]


def cli_json(*args):
    out = subprocess.run([CLI, *args, "--format", "json"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def cli_error(*args):
    r = subprocess.run([CLI, *args], capture_output=True, text=True)
    return r.returncode, r.stderr.strip()


def same(a, b):
    """Reports equal but for the version stamp (the binary and the module are one build)."""
    a, b = dict(a), dict(b)
    assert a.pop("collsim_version") == b.pop("collsim_version")
    assert a == b


def test_version_is_the_cli_version():
    out = subprocess.run([CLI, "--version"], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "collsim " + collsim.__version__


def test_collective_busbw_equals_the_cli():
    rows = collsim.collective(op="allreduce", algo="ring", sizes=["1GiB"])
    cli = cli_json("collective", "--op", "allreduce", "--algo", "ring", "--sizes", "1GiB")
    assert rows == cli["rows"]
    assert rows[0]["busbw_gbps"] == cli["rows"][0]["busbw_gbps"] > 0


def test_collective_report_and_size_lists():
    rep = collsim.collective_report(op="allgather", algo="ring", protocol="ideal", sizes=["1KiB", "1MiB"])
    assert [r["size_bytes"] for r in rep["rows"]] == [1024, 1048576]
    same(rep, cli_json("collective", "--op", "allgather", "--algo", "ring", "--protocol", "ideal", "--sizes", "1KiB,1MiB"))


def test_topology_as_a_dict_equals_the_file():
    path = os.path.join(SRC, "topologies", "ddp-4x8-example.json")
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    from_dict = collsim.collective(topology=doc, op="allreduce", algo="ring", sizes=["64MiB"])
    from_file = collsim.collective(topology=path, op="allreduce", algo="ring", sizes=["64MiB"])
    assert from_dict == from_file


def test_ddp_with_flags_and_a_workload_dict():
    path = os.path.join(SRC, "workloads", "resnet50.json")
    with open(path, encoding="utf-8") as f:
        workload = json.load(f)
    rep = collsim.ddp(topology="ddp-4x8-example", workload=workload, bucket_mb=25, gradient_as_bucket_view=True)
    cli = cli_json("ddp", "--topology", "ddp-4x8-example", "--workload", path, "--bucket-mb", "25",
                   "--gradient-as-bucket-view")
    same(rep, cli)
    assert rep["iteration_ms"] > 0 and len(rep["buckets"]) > 1


def test_sweep_equals_the_cli():
    rep = collsim.sweep(workload="resnet50", bucket_mb=[5, 25], ranks=[8, 16], jobs=1)
    same(rep, cli_json("sweep", "--workload", "resnet50", "--bucket-mb", "5,25", "--ranks", "8,16"))
    assert len(rep["rows"]) == 4 and len(rep["best"]) == 2


def test_plan_from_a_dict_equals_the_cli():
    doc = {"name": "py", "candidates": [{"name": "c", "topology": {"generator": {"kind": "cluster",
           "server": {"kind": "dgx_h100"}, "fabric": {"kind": "star", "link_kind": "ib", "nic_bandwidth": "400Gbps"}}},
           "world_sizes": [8, 16], "price": {"per_gpu_hour": 2.0}}],
           "workloads": [{"file": "bert-large", "global_batch": 256}],
           "strategies": [{"name": "ddp", "kind": "ddp", "bucket_mb": [25]}]}
    rep = collsim.plan(doc, jobs=1)
    assert [r["gpus"] for r in rep["rows"]] == [8, 16]
    assert all(r["step_ms"] > 0 for r in rep["rows"])


def test_run_goodput_is_deterministic():
    args = dict(gpus=1024, step_time="2s", steps=10000, mtbf_gpu="50000h", checkpoint_write="2min", runs=200)
    a, b = collsim.run(**args), collsim.run(**args)
    assert a == b
    assert 0 < a["goodput"] < 1
    same(a, cli_json("run", "--gpus", "1024", "--step-time", "2s", "--steps", "10000", "--mtbf-gpu", "50000h",
                     "--checkpoint-write", "2min", "--runs", "200"))


def test_validate_equals_the_cli():
    measured = os.path.join(SRC, "results", "validation", "raw", "ddp.jsonl")
    rep = collsim.validate(measured=measured, tolerance="20%")
    same(rep, cli_json("validate", "--measured", measured, "--tolerance", "20%"))


def test_a_failed_verdict_raises_with_the_report():
    # Exit 1 with a report (a row beyond a 1 % tolerance): the error carries the report.
    measured = os.path.join(SRC, "results", "validation", "raw", "ddp.jsonl")
    with pytest.raises(collsim.CollsimError) as e:
        collsim.validate(measured=measured, tolerance="1%")
    assert e.value.exit_code == 1
    assert "beyond the 1% tolerance" in str(e.value)
    assert len(e.value.report["rows"]) == 16


def test_bad_input_raises_the_cli_message_and_exit_code():
    with pytest.raises(collsim.CollsimError) as e:
        collsim.collective(op="allreduce", sizes=["1 gigabyte"])
    code, message = cli_error("collective", "--op", "allreduce", "--sizes", "1 gigabyte", "--format", "json")
    assert e.value.exit_code == code == 2
    assert str(e.value) == message
    assert "--sizes" in message


def test_a_bad_topology_dict_names_the_field():
    with pytest.raises(collsim.CollsimError) as e:
        collsim.collective(topology={"name": "t", "nodes": "none"}, sizes=["1MiB"])
    assert e.value.exit_code == 2
    assert "nodes" in str(e.value)


def test_a_dict_for_a_value_option_is_refused():
    with pytest.raises(TypeError):
        collsim.collective(sizes={"a": 1})


def test_to_dataframe():
    rows = collsim.collective(algo="ring", sizes=["1MiB", "2MiB"])
    try:
        import pandas
    except ImportError:
        # Without pandas the call says what to install.
        with pytest.raises(ImportError, match="python3-pandas"):
            collsim.to_dataframe(rows)
        return
    frame = collsim.to_dataframe(rows)
    assert isinstance(frame, pandas.DataFrame) and len(frame) == 2
    assert list(frame["busbw_gbps"]) == [r["busbw_gbps"] for r in rows]
