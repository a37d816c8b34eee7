#!/usr/bin/env bash
# The web explorer's figures for results/: page load to first result in headless chromium
# (scripts/bench_web.py, 5 cold loads) into results/bench/web.md's table, and screenshots of
# the main views into results/web/ (the browser test's views: collective table and chart,
# DDP timeline for ResNet-50, an uploaded topology with an error, the whole page).
# Usage: scripts/bench_web.sh   (after scripts/build.sh and scripts/build_web.sh)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
py=python3; [[ -x /usr/bin/python3 ]] && py=/usr/bin/python3
[[ -f $root/build-web/site/collsim.js ]] || "$root/scripts/build_web.sh" "$root/build-web"
echo "$(nproc) cores, load average at start $(cut -d' ' -f1 /proc/loadavg); commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown); $(chromium --version 2>/dev/null | head -1)."
echo
"$py" "$root/scripts/bench_web.py" --loads 5 --shots "$root/results/web"
COLLSIM=${COLLSIM:-$root/build/collsim} COLLSIM_WEB_SITE=$root/build-web/site COLLSIM_WEB_SHOTS=$root/results/web \
  "$py" -m pytest -q -p no:cacheprovider "$root/tests/web" >&2
