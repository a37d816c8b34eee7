#!/usr/bin/env bash
# Configures and builds the sanitizer tree: clang with AddressSanitizer,
# UndefinedBehaviorSanitizer and libFuzzer's coverage instrumentation, -O1 -g1 (the
# sanitizers' usual speed and line numbers in their reports at a fraction of -O2 -g's
# compile time). test.sh runs the unit tests and a short fuzz run from it; scripts/fuzz.sh
# runs longer ones. Usage: scripts/build_sanitized.sh [--build-dir DIR] TARGET...
# (--compiler prints the clang it uses)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build-fuzz"
if [[ ${1:-} == --build-dir ]]; then build=${2:?--build-dir needs a folder}; shift 2; fi
cxx=$(command -v clang++-14 || command -v clang++ || true)
if [[ ${1:-} == --compiler ]]; then echo "${cxx:-clang++}"; exit 0; fi  # for reports
(($# > 0)) || { echo "build_sanitized.sh: name the targets to build (collsim_tests, collsim_fuzz)" >&2; exit 2; }
jobs=$(nproc 2>/dev/null || echo 2)
[[ -n $cxx ]] || { echo "build_sanitized.sh: needs clang++ (scripts/setup.sh installs clang-14)" >&2; exit 2; }
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$cxx" \
  -DCOLLSIM_SANITIZE=ON -DCOLLSIM_FUZZ=ON -DCOLLSIM_BENCHMARKS=OFF -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" >/dev/null
cmake --build "$build" -j "$jobs" --target "$@"
