#!/usr/bin/env bash
# Renders the shipped single-server topologies (and the small rail-optimised cluster) to
# PNGs in results/topologies/ with `collsim topo dot` and Graphviz.
# Usage: scripts/render_topologies.sh [path/to/collsim]   (default: build/collsim)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
collsim=${1:-$root/build/collsim}
[[ -x $collsim ]] || { echo "render_topologies: $collsim not found; run scripts/build.sh first" >&2; exit 2; }
command -v dot >/dev/null || { echo "render_topologies: Graphviz 'dot' is not installed" >&2; exit 2; }
out=$root/results/topologies
mkdir -p "$out"
for name in dgx1-v100 dgx-a100 dgx-h100 hgx-h200 dgx-b200 pcie-8gpu 4x-dgx-h100-rail-8x400g-ib; do
  "$collsim" topo dot "$root/topologies/$name.json" >"$out/$name.dot"
  # Left-to-right layout; neato would tangle the crossbar boxes.
  dot -Grankdir=LR -Tpng -o "$out/$name.png" "$out/$name.dot"
  rm "$out/$name.dot"
  echo "wrote results/topologies/$name.png"
done
