#!/usr/bin/env bash
# Diagnoses the collective row that once strayed beyond 15 % in results/validation (PS
# all-reduce, 8 hosts, 4 MiB, 100 Mbit/s, MTU 9000; results/validation/bbr_run_1558): brings
# the test bed up, runs that case once more with collsim-exec, and prints the tbf drop
# counters of the server's link (both directions) and of a worker's, and the TCP
# retransmission and timeout counters inside the namespaces. The connections use the
# namespace's default congestion control (bbr here) unless COLLSIM_CONGESTION names one
# (cubic), which testbed.sh sets on the hosts' routes.
# Needs root and a built build/collsim-exec.
# Usage: sudo [COLLSIM_CONGESTION=cubic] scripts/testbed_incast_check.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
TB=$root/scripts/testbed.sh
EXEC=$root/build/collsim-exec
[[ -x $EXEC ]] || { echo "testbed_incast_check.sh: build/collsim-exec is missing (scripts/build.sh)" >&2; exit 2; }
prefix=${COLLSIM_TESTBED_PREFIX:-cst}
out=$(mktemp -d)
bash "$TB" down >/dev/null 2>&1 || true
trap 'bash "$TB" down >/dev/null 2>&1 || true; rm -rf "$out"' EXIT
bash "$TB" up 8 100mbit 9000 --congestion "${COLLSIM_CONGESTION:-default}" >/dev/null
n=8
master=$(bash "$TB" addr 0)
# The ranks' shared secret (collsim-exec ignores connections without it).
export COLLSIM_EXEC_TOKEN=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
pids=()
for ((r = 1; r < n; r++)); do
  bash "$TB" exec "$r" "$EXEC" --rank "$r" --world "$n" --master "$master:29600" --bind "$(bash "$TB" addr "$r")" \
    --algo ps --sizes 4MiB --warmup 1 --iters 3 --timeout 120s 2>/dev/null &
  pids+=($!)
done
bash "$TB" exec 0 "$EXEC" --rank 0 --world "$n" --master "$master:29600" --algo ps --sizes 4MiB --warmup 1 --iters 3 \
  --timeout 120s --output "$out/ps.jsonl" 2>/dev/null
for p in "${pids[@]}"; do wait "$p"; done
echo "PS all-reduce, 8 hosts, 4 MiB, 100 Mbit/s, MTU 9000 (1 warm-up + 3 timed iterations; rank 0 is the server)"
python3 -c 'import json,sys; r=json.loads(open(sys.argv[1]).readline()); print("time: median %.0f ms, min %.0f ms, max %.0f ms" % (r["time_us"]/1e3, r["min_us"]/1e3, r["max_us"]/1e3))' "$out/ps.jsonl"
for i in 0 1; do
  echo "tbf switch -> host $i: $(ip netns exec "$prefix-sw" tc -s qdisc show dev "p$i" | grep -o 'Sent.*')"
  echo "tbf host $i -> switch: $(ip netns exec "$prefix-h$i" tc -s qdisc show dev eth0 | grep -o 'Sent.*')"
  echo "TCP host $i: $(ip netns exec "$prefix-h$i" nstat -az TcpRetransSegs TcpExtTCPTimeouts | awk 'NR>1 {printf "%s %s  ", $1, $2}')"
done
