#!/usr/bin/env bash
# Sets up, builds, and runs every test: the unit tests under AddressSanitizer +
# UndefinedBehaviorSanitizer and a short run of every parser's fuzz target (clang,
# build-fuzz/), then the whole suite through ctest on the Release build (build/). Ends
# with ctest's summary; exits non-zero on any failure.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc 2>/dev/null || echo 2)
"$root/scripts/setup.sh"
# Each phase prints the seconds since the start: the whole script must stay well under
# 45 minutes on CI's two cores (docs/performance.md).
phase() { echo "== $1 (at ${SECONDS}s)"; }

phase "build (Release)"
"$root/scripts/build.sh"

phase "build (web explorer: WebAssembly)"
# build-web/site, which the browser test (ctest web.explorer, headless chromium) loads.
"$root/scripts/build_web.sh" "$root/build-web"

phase "build (clang: ASan + UBSan + libFuzzer)"
# One sanitizer tree for the unit tests and the fuzz targets; only those: the CLI tests
# run on the Release build.
"$root/scripts/build_sanitized.sh" collsim_tests collsim_fuzz

phase "unit tests under sanitizers"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
(cd "$root/build-fuzz" && ctest --output-on-failure -j "$jobs" -LE cli)

phase "fuzz every parser (2,000 executions each, fixed seed)"
"$root/scripts/fuzz.sh" --runs 2000

phase "prediction regression (collsim check on results/golden)"
"$root/build/collsim" check --baseline "$root"/results/golden/*.json

phase "all tests (Release)"
cd "$root/build"
ctest --output-on-failure -j "$jobs"
echo "== test.sh finished in ${SECONDS}s"
