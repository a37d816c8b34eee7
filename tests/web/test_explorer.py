"""The web explorer (web/) in a real browser: Debian's chromium, headless, driven over the
DevTools protocol (cdp.py). The page's figures are checked against the collsim command's
output for the same inputs, taken from the command lines the page itself shows.

Environment: COLLSIM (the collsim binary), COLLSIM_WEB_SITE (build-web/site),
COLLSIM_WEB_SHOTS (a folder for screenshots; optional).
"""

import json
import os
import pathlib
import shlex
import subprocess
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from cdp import Browser, find_chromium  # noqa: E402

COLLSIM = os.environ.get("COLLSIM", "collsim")
SITE = pathlib.Path(os.environ.get("COLLSIM_WEB_SITE", "build-web/site")).resolve()
SHOTS = os.environ.get("COLLSIM_WEB_SHOTS")
ALGOS = ["ring", "tree", "ps", "hier_ring"]


@pytest.fixture(scope="module")
def page():
    chromium = find_chromium()
    assert chromium, "chromium is not installed (scripts/setup.sh installs it)"
    assert (SITE / "index.html").is_file() and (SITE / "collsim.js").is_file(), f"{SITE}: run scripts/build_web.sh"
    browser = Browser(chromium)
    browser.navigate((SITE / "index.html").as_uri())
    browser.wait_for("window.explorerState && explorerState.ready && explorerState.pending === 0")
    yield browser
    assert browser.exceptions() == [], "the page threw"
    browser.close()


def shot(page, name):
    if SHOTS:
        pathlib.Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(pathlib.Path(SHOTS) / name)


def set_input(page, element_id, value, event):
    page.evaluate(f"""(() => {{
        const e = document.getElementById({json.dumps(element_id)});
        e.value = {json.dumps(str(value))};
        e.dispatchEvent(new Event({json.dumps(event)}, {{ bubbles: true }}));
    }})()""")
    page.wait_for("explorerState.pending === 0")


def text_of(page, selector):
    return page.evaluate(f"document.querySelector({json.dumps(selector)})?.textContent ?? null")


def page_commands(page):
    return page.evaluate("document.getElementById('commands').textContent").splitlines()


def run_cli(command_line, cwd, *extra):
    """A command line as the page shows it ("collsim collective ..."), run by the real binary."""
    words = shlex.split(command_line)
    assert words[0] == "collsim"
    return subprocess.run([COLLSIM, *words[1:], *extra], cwd=cwd, capture_output=True, text=True, timeout=300)


def write_star(page, folder):
    (folder / "explorer-star.json").write_text(page.evaluate("document.getElementById('topology-json').textContent"))


def test_version_is_the_cli_version(page):
    version = subprocess.run([COLLSIM, "--version"], capture_output=True, text=True, check=True).stdout.split()[-1]
    assert f"collsim {version} " in text_of(page, "#version")


@pytest.mark.parametrize("exponent", [1, 3, 6, 10])
def test_collective_table_equals_the_cli_to_the_printed_digit(page, tmp_path, exponent):
    # Move the N slider to 2^exponent GPUs; every algorithm's row must print what the CLI prints.
    set_input(page, "n-range", exponent, "input")
    n = 2 ** exponent
    assert page.evaluate("document.getElementById('n').value") == str(n)
    write_star(page, tmp_path)
    commands = [c for c in page_commands(page) if c.startswith("collsim collective ")]
    assert len(commands) == len(ALGOS)
    for algo, command in zip(ALGOS, commands):
        assert f"--algo {algo} " in command + " "
        cli = run_cli(command, tmp_path)
        assert cli.returncode == 0, cli.stderr
        rows = [line.split() for line in cli.stdout.splitlines() if line and not line.startswith("#")]
        assert len(rows) == 1
        time_us, algbw, busbw = rows[0][5:8]
        assert f"({n} ranks)" in cli.stdout
        for field, expected in (("time_us", time_us), ("algbw_gbps", algbw), ("busbw_gbps", busbw)):
            shown = text_of(page, f'#collective-table td[data-algo="{algo}"][data-field="{field}"]')
            assert shown == expected, f"N={n} {algo} {field}: page {shown}, CLI {expected}"
    page.wait_for("explorerState.chartDone && explorerState.sentDone")
    if exponent == 3:
        shot(page, "collective.png")


def test_bytes_sent_per_gpu_come_from_the_schedule(page, tmp_path):
    set_input(page, "n-range", 3, "input")
    page.wait_for("explorerState.sentDone")
    command = next(c for c in page_commands(page) if c.startswith("collsim schedule ") and "--algo ps " in c)
    report = json.loads(run_cli(command, tmp_path, "--format", "json").stdout)
    sent = [r["sent_bytes"] for r in report["per_rank"]]
    assert text_of(page, '#collective-table td[data-algo="ps"][data-field="sent_bytes"]') == f"{min(sent)} – {max(sent)}"


def test_chart_draws_time_against_n_for_every_algorithm(page):
    set_input(page, "size", "64MiB", "change")
    page.wait_for("explorerState.chartDone")
    drawn = page.evaluate("[...document.querySelectorAll('#chart polyline')].map(p => [p.dataset.algo, p.points.length])")
    assert sorted(drawn) == sorted([algo, 10] for algo in ALGOS)  # N = 2, 4, ..., 1024


def test_ddp_timeline_renders_for_resnet50(page, tmp_path):
    set_input(page, "n-range", 5, "input")
    set_input(page, "workload", "resnet50", "change")
    set_input(page, "bucket", "25", "change")
    page.wait_for("explorerState.chartDone")
    write_star(page, tmp_path)
    command = next(c for c in page_commands(page) if c.startswith("collsim ddp "))
    report = json.loads(run_cli(command, tmp_path, "--format", "json").stdout)
    assert text_of(page, '#ddp-figures dd[data-field="iteration"]') == f"{report['iteration_ms']:.3f} ms"
    assert text_of(page, '#ddp-figures dd[data-field="exposed_communication"]') == \
        f"{report['exposed_communication_ms']:.3f} ms"
    blocks = page.evaluate("document.querySelectorAll('#timeline g.bucket rect').length")
    assert blocks == len(report["buckets"]) > 1
    assert page.evaluate("document.querySelectorAll('#timeline g.forward, #timeline g.backward').length") == 2
    assert page.evaluate("document.querySelectorAll('#timeline rect.exposed').length") == \
        (1 if report["exposed_communication_ms"] > 0 else 0)
    shot(page, "ddp-resnet50.png")


def test_uploaded_topology_with_an_error_shows_the_cli_message(page, tmp_path):
    bad = tmp_path / "bad-topology.json"
    bad.write_text(json.dumps({"name": "bad", "generator": {"kind": "star", "hosts": 4, "bandwidth": "fast",
                                                            "latency": "1us"}}))
    page.set_files("#upload", [bad])
    page.wait_for("document.getElementById('topology').value === 'upload:bad-topology.json' && "
                  "!document.getElementById('error').hidden")
    shown = text_of(page, "#error")
    command = next(c for c in page_commands(page) if c.startswith("collsim collective "))
    assert "--topology bad-topology.json" in command
    cli = run_cli(command, tmp_path)
    assert cli.returncode == 2
    assert shown == cli.stderr.strip()
    assert "bad-topology.json" in shown and "fast" in shown
    shot(page, "upload-error.png")
    set_input(page, "topology", "star", "change")
    assert page.evaluate("document.getElementById('error').hidden")


def test_clusters_too_large_for_a_tab_are_named_not_offered(page):
    offered = page.evaluate("[...document.getElementById('topology').options].map(o => o.value)")
    assert "shipped:h100-fat-tree-1024" in offered and "shipped:dgx-h100" in offered
    for name in ("h100-fat-tree-16384", "h100-rail-131072"):
        assert f"shipped:{name}" not in offered
        assert name in text_of(page, "#large-note")


def test_a_shipped_topology_runs(page, tmp_path):
    set_input(page, "topology", "shipped:dgx-h100", "change")
    assert page.evaluate("document.getElementById('n').value") == "8"
    command = next(c for c in page_commands(page) if c.startswith("collsim collective ") and "--algo ring " in c)
    report = json.loads(run_cli(command, tmp_path, "--format", "json").stdout)
    shown = text_of(page, '#collective-table td[data-algo="ring"][data-field="busbw_gbps"]')
    assert shown == f"{report['rows'][0]['busbw_gbps']:.2f}"
    set_input(page, "topology", "star", "change")
