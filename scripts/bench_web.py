#!/usr/bin/env python3
"""Times the web explorer (build-web/site) in headless chromium and saves screenshots of its
main views. Prints a Markdown table: for each of K cold loads (a fresh browser each time),
the time from navigation start to the first result on the page (explorerState.firstResultMs,
the page's own performance.now() when the first tables are drawn), and to the time-vs-N
chart (40 collectives); then the time one slider move takes at N = 1024.
Usage: scripts/bench_web.py [--loads K] [--site DIR] [--shots DIR]
"""

import argparse
import pathlib
import statistics
import sys
import time

root = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(root / "tests" / "web"))
from cdp import Browser, find_chromium  # noqa: E402


def load(browser, site):
    browser.navigate((site / "index.html").as_uri())
    browser.wait_for("window.explorerState && explorerState.ready && explorerState.chartDone && explorerState.pending === 0")
    first = browser.evaluate("explorerState.firstResultMs")
    # The chart is done when its last deferred run is: measured from navigation start too.
    chart = browser.evaluate("performance.now()")
    return first, chart


def slider_move(browser, exponent):
    """Milliseconds the page spends on one N-slider move (the table and the DDP step, synchronous)."""
    return browser.evaluate(f"""(() => {{
        const e = document.getElementById('n-range'); e.value = '{exponent}';
        const t0 = performance.now(); e.dispatchEvent(new Event('input', {{ bubbles: true }}));
        return performance.now() - t0; }})()""")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--loads", type=int, default=5)
    parser.add_argument("--site", type=pathlib.Path, default=root / "build-web" / "site")
    parser.add_argument("--shots", type=pathlib.Path, default=None)
    args = parser.parse_args()
    chromium = find_chromium()
    if not chromium or not (args.site / "collsim.js").is_file():
        sys.exit(f"bench_web: needs chromium and {args.site}/collsim.js (scripts/build_web.sh)")
    size_mib = (args.site / "collsim.js").stat().st_size / 2**20
    print(f"Page: {args.site.relative_to(root) if args.site.is_relative_to(root) else args.site} "
          f"(collsim.js {size_mib:.1f} MiB, the engine inside as base64 WebAssembly); {chromium}.\n")
    print("| load | first result (ms) | chart of 40 collectives done (ms) |")
    print("|---:|---:|---:|")
    firsts = []
    for k in range(1, args.loads + 1):
        browser = Browser(chromium)
        try:
            first, chart = load(browser, args.site)
        finally:
            browser.close()
        firsts.append(first)
        print(f"| {k} | {first:.0f} | {chart:.0f} |")
    print(f"\nMedian first result: {statistics.median(firsts):.0f} ms (target: under 2,000 ms).\n")
    browser = Browser(chromium)
    try:
        load(browser, args.site)
        moves = [slider_move(browser, e) for e in (10, 3, 10, 3, 10)]
        print(f"One N-slider move to 1,024 GPUs (4 collectives and the DDP step, before the chart is redrawn): "
              f"{statistics.median(moves[0::2]):.0f} ms median of 3; back to 8 GPUs: {statistics.median(moves[1::2]):.0f} ms.")
        if args.shots:
            args.shots.mkdir(parents=True, exist_ok=True)
            browser.wait_for("explorerState.chartDone && explorerState.pending === 0")
            browser.screenshot(args.shots / "explorer.png")
            print(f"\nScreenshot: {args.shots.relative_to(root) if args.shots.is_relative_to(root) else args.shots}/explorer.png")
    finally:
        browser.close()


if __name__ == "__main__":
    start = time.monotonic()
    main()
