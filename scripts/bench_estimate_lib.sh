# Sourced by scripts/bench_tree_estimate.sh and scripts/bench_nvls_tree_estimate.sh, which set
# $tmp (a scratch directory) first. run COMMAND...: one run pinned to one core (when taskset
# exists), printing "time_ps wall_s" (the JSON output's first time_ps, GNU time's wall
# seconds), failing loudly.
pin=()
command -v taskset >/dev/null && pin=(taskset -c 0)

run() {
  /usr/bin/time -f "%e" -o "$tmp/time" "${pin[@]}" "$@" --format json >"$tmp/out" 2>"$tmp/err" ||
    { echo "failed: $* : $(cat "$tmp/err")" >&2; exit 1; }
  echo "$(grep -m1 -o '"time_ps": [0-9]*' "$tmp/out" | grep -o '[0-9]*$') $(tail -1 "$tmp/time")"
}
