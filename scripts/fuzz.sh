#!/usr/bin/env bash
# Fuzzes every collsim input parser with libFuzzer under ASan + UBSan (tests/fuzz).
#
#   scripts/fuzz.sh SECONDS            each target for SECONDS seconds
#   scripts/fuzz.sh --runs N           each target for N executions (test.sh: a short fixed run)
#   options: --targets a,b (names without fuzz_)  --report FILE (markdown table)
#            --jobs J (targets at once; default: cores)  --build-dir DIR (default build-fuzz)
#
# Seeds are the shipped files of each kind (topologies/, workloads/, plans/, results/golden,
# the validation records and calibrations, tests/data's nccl-tests logs and NCCL XML dumps)
# plus tests/fuzz/seeds; inputs that find new coverage collect in DIR/fuzz/corpus/TARGET and
# seed the next run. A crash, sanitizer report, leak, timeout (-timeout=60 per input) or
# memory over 4 GiB is a finding: its input is saved in DIR/fuzz/findings/TARGET and the
# script exits 1. Reproduce one with DIR/tests/fuzz/fuzz_TARGET FILE.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds="" runs="" targets="" report="" jobs=$(nproc 2>/dev/null || echo 2) build="$root/build-fuzz"
usage() { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [[ $# -gt 0 ]]; do
  case $1 in
    --runs) runs=${2:?--runs needs a count}; shift 2 ;;
    --targets) targets=${2:?--targets needs names}; shift 2 ;;
    --report) report=${2:?--report needs a file}; shift 2 ;;
    --jobs) jobs=${2:?--jobs needs a number}; shift 2 ;;
    --build-dir) build=${2:?--build-dir needs a folder}; shift 2 ;;
    -h|--help) usage ;;
    *) [[ $1 =~ ^[0-9]+$ && -z $seconds ]] || { echo "fuzz.sh: unexpected argument '$1'" >&2; usage; }
       seconds=$1; shift ;;
  esac
done
[[ -n $seconds || -n $runs ]] || { echo "fuzz.sh: give SECONDS or --runs N" >&2; usage; }
[[ -z $seconds || -z $runs ]] || { echo "fuzz.sh: give SECONDS or --runs N, not both" >&2; exit 2; }
[[ -z $runs || $runs =~ ^[0-9]+$ ]] || { echo "fuzz.sh: --runs expects a whole number, got '$runs'" >&2; exit 2; }
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: --jobs expects a positive number, got '$jobs'" >&2; exit 2; }

# The shipped files that seed each target.
declare -A seeds=(
  [topology]="topologies/*.json tests/data/nccl-tests/dev/topologies/*.json"
  [workload]="workloads/*.json"
  [plan]="plans/*.json"
  [calibration]="results/validation/calibration.json results/validation/*/calibration.json"
  [nccl_tests_log]="tests/data/nccl-tests/*.txt tests/data/nccl-tests/dev/*.txt"
  [json_lines]="results/validation/raw/*.jsonl results/validation/*/raw/*.jsonl"
  [golden_baseline]="results/golden/*.json"
  [units]="tests/fuzz/seeds/units/*"
  [nccl_xml]="tests/data/nccl-xml/*.xml"
  [exec_hello]="tests/fuzz/seeds/exec_hello/*"
  [work_journal]="tests/fuzz/seeds/work_journal/*"
  [link_scenario]="examples/scenarios/*.json"
  [failure_trace]="examples/failure-traces/*.json"
)
all="topology workload plan calibration nccl_tests_log json_lines golden_baseline units nccl_xml exec_hello work_journal link_scenario failure_trace"
selected=${targets//,/ }
selected=${selected:-$all}
for t in $selected; do
  [[ -n ${seeds[$t]+x} ]] || { echo "fuzz.sh: unknown target '$t' (targets: $all)" >&2; exit 2; }
done

"$root/scripts/build_sanitized.sh" --build-dir "$build" collsim_fuzz

# The commit the targets are built from, for the report.
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
[[ -z $(git -C "$root" status --porcelain -- sim tests/fuzz 2>/dev/null) ]] || commit+=" (with uncommitted changes)"
work="$build/fuzz"
mkdir -p "$work/logs"
run_one() {
  local t=$1
  local seed_dir="$work/seeds/$t" corpus="$work/corpus/$t" findings="$work/findings/$t"
  # Findings are this run's: an earlier run's inputs would be counted again.
  rm -rf "$seed_dir" "$findings" && mkdir -p "$seed_dir" "$corpus" "$findings"
  # Named by their path, so that two calibration.json files stay two seeds.
  (cd "$root" && for f in ${seeds[$t]}; do [[ -f $f ]] && cp "$f" "$seed_dir/${f//\//_}"; done)
  local limit=(-max_total_time="${seconds:-0}")
  [[ -n $runs ]] && limit=(-runs="$runs" -seed=1)
  local dict=()
  [[ $t == units || $t == nccl_tests_log || $t == nccl_xml || $t == exec_hello ]] || dict=(-dict="$root/tests/fuzz/json.dict")
  local rc=0
  "$build/tests/fuzz/fuzz_$t" "${limit[@]}" "${dict[@]}" -timeout=60 -rss_limit_mb=4096 -max_len=300000 \
    -print_final_stats=1 -artifact_prefix="$findings/" "$corpus" "$seed_dir" >"$work/logs/$t.log" 2>&1 || rc=$?
  echo "$rc" >"$work/logs/$t.rc"
}
export -f run_one
export root build work seconds runs
declare -p seeds >"$work/seeds.decl"
# Each target is one libFuzzer process; run `jobs` of them at a time.
printf '%s\n' $selected | xargs -P "$jobs" -I{} bash -c 'source "$work/seeds.decl"; run_one {}'

status=0
table="| target | seeds | executions | seconds | exec/s | slowest input (s) | coverage (edges) | features | corpus | findings |
|---|---|---|---|---|---|---|---|---|---|"
for t in $selected; do
  log="$work/logs/$t.log"
  rc=$(cat "$work/logs/$t.rc")
  nseeds=$(find "$work/seeds/$t" -type f | wc -l)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
  cov=$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.*ft: \([0-9]*\).*/\1/p' <<<"$last")
  corp=$(sed -n 's/.*corp: \([0-9]*\).*/\1/p' <<<"$last")
  # libFuzzer also saves inputs slower than 10 s as slow-unit-*: reported, not a finding.
  nfind=$(find "$work/findings/$t" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  slowest=$(sed -n 's/^stat::slowest_unit_time_sec: *//p' "$log" | tail -1)
  if [[ $rc != 0 || $nfind != 0 ]]; then
    status=1
    echo "FINDING in $t (exit $rc): see $log and $work/findings/$t/" >&2
    grep -E 'ERROR|runtime error|unexpected exception|SUMMARY' "$log" | head -5 >&2 || true
  fi
  table+=$'\n'"| $t | $nseeds | ${execs:-?} | ${secs:-?} | ${rate:-?} | ${slowest:-?} | ${cov:-?} | ${ft:-?} | ${corp:-?} | $nfind |"
done
echo "$table"
if [[ -n $report ]]; then
  what=${seconds:+$seconds seconds}
  what=${what:-$runs executions}
  {
    echo "# Fuzzing the parsers"
    echo
    echo "Written by \`scripts/fuzz.sh ${seconds:---runs $runs}\` (docs/hardening.md): each target for $what,"
    echo "$jobs at a time, libFuzzer under ASan + UBSan, $($("$root/scripts/build_sanitized.sh" --compiler) --version | head -1),"
    echo "commit $commit, $(date -u +%Y-%m-%d), $(nproc) cores. Seeds: the shipped files of each kind; corpus: what"
    echo "earlier runs on this machine kept. Findings are crashes, sanitizer reports, leaks, timeouts"
    echo "(60 s per input), memory over 4 GiB and exceptions other than collsim's exit-2 errors."
    echo
    printf '%s\n' "$table"
  } >"$report"
fi
[[ $status == 0 ]] && echo "fuzz.sh: no findings in $(wc -w <<<"$selected") targets" || echo "fuzz.sh: FINDINGS (see above)"
exit $status
