"""examples/ddp_bucket_sweep.ipynb runs: its code cells, in order, in one namespace, in a
temporary directory (Debian has no Jupyter kernel in this project's packages, so the cells
are executed here as Jupyter would, one after the other). It must draw its plot and find a
best bucket size per world size."""

import json
import os
import pathlib

NOTEBOOK = pathlib.Path(os.environ["COLLSIM_SOURCE_DIR"]) / "examples" / "ddp_bucket_sweep.ipynb"


def test_the_notebook_runs_and_plots(tmp_path, monkeypatch):
    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    assert nb["nbformat"] == 4
    cells = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    assert len(cells) >= 4
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__main__"}
    for i, source in enumerate(cells):
        exec(compile(source, f"{NOTEBOOK.name} cell {i}", "exec"), namespace)
    png = tmp_path / "ddp_bucket_sweep.png"
    assert png.stat().st_size > 10_000
    best = namespace["best"]
    assert sorted(best) == [8, 16, 32]
    assert all(mb in namespace["buckets"] for mb in best.values())
    assert len(namespace["rows"]) == 3 * len(namespace["buckets"])
