#!/usr/bin/env bash
# Sets up, builds, and runs every test: the unit tests under AddressSanitizer +
# UndefinedBehaviorSanitizer (build-asan/), then the whole suite through ctest on the
# Release build (build/). Ends with ctest's summary; exits non-zero on any failure.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc 2>/dev/null || echo 2)
"$root/scripts/setup.sh"

echo "== build (Release)"
"$root/scripts/build.sh"

echo "== build (ASan + UBSan)"
cmake -S "$root" -B "$root/build-asan" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCOLLSIM_SANITIZE=ON \
  -DCOLLSIM_BENCHMARKS=OFF >/dev/null
cmake --build "$root/build-asan" -j "$jobs" --target collsim_tests collsim

echo "== unit tests under sanitizers"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
(cd "$root/build-asan" && ctest --output-on-failure -j "$jobs" -LE cli)

echo "== prediction regression (collsim check on results/golden)"
"$root/build/collsim" check --baseline "$root"/results/golden/*.json

echo "== all tests (Release)"
cd "$root/build"
ctest --output-on-failure -j "$jobs"
