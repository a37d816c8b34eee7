#!/usr/bin/env bash
# Builds the web explorer (web/): collsim's engine compiled to WebAssembly by Debian's
# emscripten, plus the page. Output: build-web/site/index.html, a static page that opens
# from a file (file://) or any static host. Usage: scripts/build_web.sh [build folder]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/build-web}
jobs=$(nproc 2>/dev/null || echo 2)
command -v emcmake >/dev/null || { echo "build_web: emcmake not found (Debian: apt-get install emscripten; scripts/setup.sh does)" >&2; exit 2; }
# Debian's emscripten runs its JavaScript tools with node and finds their modules (acorn)
# among Debian's node packages, which a node from elsewhere does not search by itself.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
# emscripten's cache (its libc and libc++ built on first use) outside the read-only system
# folder when not root.
[[ -w /usr/share/emscripten/cache ]] || export EM_CACHE=${EM_CACHE:-$HOME/.cache/emscripten}
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
emcmake cmake -S "$root/web" -B "$out" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$out" -j "$jobs"
echo "build_web: open $out/site/index.html"
