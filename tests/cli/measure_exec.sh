# collsim-exec end to end on loopback: correct results, its JSON line, bad input (exit 2),
# a rank that never arrives and a peer killed mid-collective (exit 2 within the timeout).
source "$(dirname "$0")/lib.bash"
EXEC=$(dirname "$COLLSIM")/collsim-exec
[[ -x $EXEC ]] || fail "collsim-exec not built next to $COLLSIM"

# Three ranks, ring and PS, a size that splits unevenly (tail bytes): the result check
# passes (wrong 0) and one JSON line per (algorithm, size) comes out of rank 0.
"$EXEC" --local 3 --algo ring,ps --sizes 1000003B,64KiB --iters 2 --label t >"$TMP/recs" 2>"$TMP/err" ||
  fail "collsim-exec --local 3 failed: $(cat "$TMP/err")"
[[ $(wc -l <"$TMP/recs") == 4 ]] || fail "expected 4 records, got: $(cat "$TMP/recs")"
python3 - "$TMP/recs" <<'PY' || fail "records malformed: $(cat "$TMP/recs")"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
assert [(r["algorithm"], r["size"]) for r in recs] == [("ring", 1000003), ("ring", 65536), ("ps", 1000003), ("ps", 65536)]
for r in recs:
    assert r["kind"] == "collective" and r["op"] == "allreduce" and r["ranks"] == 3 and r["wrong"] == 0
    assert r["iterations"] == 2 and r["time_us"] > 0 and r["min_us"] <= r["time_us"] <= r["max_us"] and r["label"] == "t"
    assert r["congestion"] == open("/proc/sys/net/ipv4/tcp_congestion_control").read().strip(), r  # the default in use
PY
# --congestion picks the sockets' congestion control and the record names it (reno is
# built into every Linux kernel); an unknown one is refused with exit 2.
"$EXEC" --local 2 --algo ring --sizes 64KiB --iters 1 --congestion reno >"$TMP/cc" 2>"$TMP/err" ||
  fail "--congestion reno: $(cat "$TMP/err")"
grep -q '"congestion":"reno"' "$TMP/cc" || fail "record does not name reno: $(cat "$TMP/cc")"
"$EXEC" --local 2 --algo ring --sizes 64KiB --iters 1 --congestion no-such-tcp --timeout 10s >/dev/null 2>"$TMP/err" &&
  fail "--congestion no-such-tcp succeeded"
[[ $? == 2 ]] || fail "--congestion no-such-tcp: exit $? (want 2): $(cat "$TMP/err")"
grep -q 'congestion control "no-such-tcp" not available' "$TMP/err" || fail "unclear error: $(cat "$TMP/err")"

# --timeout beyond a day (1000000 s) would overflow poll()'s int of milliseconds (an endless wait).
rc=0
"$EXEC" --local 2 --sizes 64KiB --timeout 1000000s >/dev/null 2>"$TMP/err" || rc=$?
[[ $rc == 2 ]] && grep -q -- '--timeout.*1ms to 86400s' "$TMP/err" || fail "--timeout 1000000s: exit $rc: $(cat "$TMP/err")"

# --per-transfer: ring on 3 ranks has 2(3-1) steps x 3 transfers = 12, each with a start
# at its sender and an end at its receiver (us from that rank's go).
"$EXEC" --local 3 --algo ring --sizes 64KiB --iters 1 --per-transfer >"$TMP/pt" 2>&1 || fail "--per-transfer: $(cat "$TMP/pt")"
python3 - "$TMP/pt" <<'PY' || fail "per-transfer record: $(cat "$TMP/pt")"
import json, sys
r = json.loads(open(sys.argv[1]).readline())
t = r["transfers"]
assert len(t) == 12, len(t)
assert [x["kind"] for x in t[:3]] == ["reduce"] * 3 and [x["kind"] for x in t[-3:]] == ["copy"] * 3
assert all(x["start_us"] >= 0 and x["end_us"] >= 0 and x["bytes"] in (21845, 21846) for x in t), t
PY

# The records are valid input for validate (strict reader): no topology -> exit 2 naming it.
expect_error 2 "topology" -- validate --measured "$TMP/recs"

# Fixed socket buffers and a congestion control choice run the same (cubic is built in).
"$EXEC" --local 2 --sizes 1MiB --iters 1 --socket-buffer 1MiB --congestion cubic >"$TMP/sb" 2>&1 ||
  fail "--socket-buffer/--congestion: $(cat "$TMP/sb")"

# Bad input.
run_exec() { rc=0; "$EXEC" "$@" >"$TMP/eout" 2>"$TMP/eerr" || rc=$?; }
run_exec --local 2 --algo nope; [[ $rc == 2 ]] && grep -q -- "--algo" "$TMP/eerr" || fail "bad --algo: rc $rc $(cat "$TMP/eerr")"
run_exec --local 2 --sizes 12parsecs; [[ $rc == 2 ]] && grep -q -- "--sizes" "$TMP/eerr" || fail "bad --sizes: rc $rc"
run_exec --local 2 --socket-buffer 12; [[ $rc == 2 ]] && grep -q -- "--socket-buffer" "$TMP/eerr" || fail "bad --socket-buffer: rc $rc"
run_exec --local 2 --congestion warp9; [[ $rc == 2 ]] && grep -q "warp9" "$TMP/eerr" || fail "bad --congestion: rc $rc $(cat "$TMP/eerr")"
run_exec --rank 3 --world 2; [[ $rc == 2 ]] && grep -q -- "--rank" "$TMP/eerr" || fail "bad --rank: rc $rc"
run_exec --rank 0 --world 2 --master nowhere; [[ $rc == 2 ]] && grep -q -- "--master" "$TMP/eerr" || fail "bad --master: rc $rc"

# Ranks started one by one share a token (--local makes its own).
export COLLSIM_EXEC_TOKEN=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')

# A rank that never comes: rank 0 gives up after the timeout, exit 2.
# A port nothing listens on now (other test suites share this machine's loopback).
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
port=$(free_port)
start=$SECONDS
run_exec --rank 0 --world 2 --master 127.0.0.1:$port --timeout 1s
[[ $rc == 2 ]] && grep -q "timed out" "$TMP/eerr" || fail "missing rank: rc $rc $(cat "$TMP/eerr")"
((SECONDS - start < 10)) || fail "missing rank took $((SECONDS - start)) s"

# Mismatched world sizes: both sides refuse (exit 2).
port=$(free_port)
"$EXEC" --rank 1 --world 3 --master 127.0.0.1:$port --timeout 5s >/dev/null 2>"$TMP/r1err" &
r1=$!
run_exec --rank 0 --world 2 --master 127.0.0.1:$port --timeout 5s
wait $r1 && fail "rank 1 with the wrong --world succeeded"
[[ $rc == 2 ]] && grep -q "mismatched rank count" "$TMP/eerr" || fail "world mismatch: rc $rc $(cat "$TMP/eerr")"

# A peer killed mid-collective: the others stop with exit 2, not a hang.
port=$(free_port)
"$EXEC" --rank 1 --world 3 --master 127.0.0.1:$port --sizes 64MiB --iters 100000 --timeout 5s >/dev/null 2>"$TMP/k1" &
p1=$!
"$EXEC" --rank 2 --world 3 --master 127.0.0.1:$port --sizes 64MiB --iters 100000 --timeout 5s >/dev/null 2>"$TMP/k2" &
p2=$!
"$EXEC" --rank 0 --world 3 --master 127.0.0.1:$port --sizes 64MiB --iters 100000 --timeout 5s >/dev/null 2>"$TMP/k0" &
p0=$!
sleep 2
kill -9 $p2
wait $p2 2>/dev/null || true
rc0=0; wait $p0 || rc0=$?
rc1=0; wait $p1 || rc1=$?
[[ $rc0 == 2 && $rc1 == 2 ]] || fail "after killing rank 2: rank 0 exit $rc0, rank 1 exit $rc1"
grep -q "rank 2" "$TMP/k0" "$TMP/k1" || fail "no rank names the dead peer: $(cat "$TMP/k0" "$TMP/k1")"
echo "ok"
