#!/usr/bin/env bash
# Sets up, builds, and runs every test: the unit tests under AddressSanitizer +
# UndefinedBehaviorSanitizer (build-asan/), then the whole suite through ctest on the
# Release build (build/). Ends with ctest's summary; exits non-zero on any failure.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc 2>/dev/null || echo 2)
"$root/scripts/setup.sh"
# Each phase prints the seconds since the start: the whole script must stay well under
# 45 minutes on CI's two cores (docs/performance.md).
phase() { echo "== $1 (at ${SECONDS}s)"; }

phase "build (Release)"
"$root/scripts/build.sh"

phase "build (ASan + UBSan)"
# -O1 -g1: enough optimisation for the sanitizers' usual speed and line numbers in their
# reports, at a fraction of -O2 -g's compile time. Only the unit-test binary: the CLI tests
# run on the Release build.
cmake -S "$root" -B "$root/build-asan" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCOLLSIM_SANITIZE=ON \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DCOLLSIM_BENCHMARKS=OFF >/dev/null
cmake --build "$root/build-asan" -j "$jobs" --target collsim_tests

phase "unit tests under sanitizers"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
(cd "$root/build-asan" && ctest --output-on-failure -j "$jobs" -LE cli)

phase "prediction regression (collsim check on results/golden)"
"$root/build/collsim" check --baseline "$root"/results/golden/*.json

phase "all tests (Release)"
cd "$root/build"
ctest --output-on-failure -j "$jobs"
echo "== test.sh finished in ${SECONDS}s"
