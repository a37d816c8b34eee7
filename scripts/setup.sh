#!/usr/bin/env bash
# Installs the Debian packages collsim needs, only those that are missing.
# Idempotent: when everything is present it only queries dpkg (well under a second).
# Usage: scripts/setup.sh [--python]   (--python adds the measurement-harness packages)
set -euo pipefail

packages=(cmake ninja-build g++ pkg-config libboost-graph-dev nlohmann-json3-dev libcli11-dev
          libspdlog-dev libfmt-dev catch2 libbenchmark-dev libsimgrid-dev python3
          clang-14 libclang-rt-14-dev  # libFuzzer and the sanitizer build (scripts/fuzz.sh)
          universal-ctags  # scripts/unity_names.py reads each file's file-local names
          python3-matplotlib  # collsim plan --report draws its PNG plots with matplotlib
          libopenmpi-dev openmpi-bin  # collsim-mpi: plans and sweeps over MPI ranks
          pybind11-dev python3-dev python3-pytest  # the Python package (python/) and its tests
          emscripten chromium fonts-dejavu-core)  # the web explorer (web/) and its browser test
if [[ ${1:-} == --python ]]; then
  packages+=(python3-torch python3-torchvision python3-numpy)
fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ $status == "install ok installed" ]] || missing+=("$p")
done
((${#missing[@]} == 0)) && exit 0

echo "setup: installing ${missing[*]}" >&2
sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "setup: not root and no sudo; install: ${missing[*]}" >&2; exit 1; }
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q >&2 || true
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
