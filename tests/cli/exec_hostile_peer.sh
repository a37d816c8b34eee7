# collsim-exec trusts no one (issue 16): a waiting rank 0 meets strangers (no token,
# garbage, a hello announcing a giant payload, a silent socket, an old token-less hello),
# logs each one with its address and why, keeps memory bounded, and still completes the
# run with the real rank 1. A rank of the run that sends a length the schedule does not
# have is refused before anything is allocated. Ranks started with other --iters or --algo
# are refused at the handshake naming the difference (exit 2 on both sides); a missing
# token, an unwritable --output and in-network algorithms are exit-2 errors up front.
source "$(dirname "$0")/lib.bash"
EXEC=$(dirname "$COLLSIM")/collsim-exec
[[ -x $EXEC ]] || fail "collsim-exec not built next to $COLLSIM"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
export COLLSIM_EXEC_TOKEN=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
# Runs a command and writes its exit code and peak RSS (KiB, the kernel's count for the
# waited-for child) to FILE.rc and FILE.rss.
cat >"$TMP/measure.py" <<'PY'
import resource, subprocess, sys
rc = subprocess.call(sys.argv[2:])
open(sys.argv[1] + ".rss", "w").write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
open(sys.argv[1] + ".rc", "w").write(str(rc))
PY
# The strangers. Hello layout (sim/exec/handshake.hpp): magic u32, rank i32, world i32,
# port u32, params_len u32, token char[128]; message header: type u32, id u32, length u64.
cat >"$TMP/strangers.py" <<'PY'
import os, socket, struct, sys, time
port, hold, ready = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
MAGIC = 0x43534d59
def conn():
    for _ in range(200):
        try:
            return socket.create_connection(("127.0.0.1", port))
        except OSError:
            time.sleep(0.05)
    sys.exit("rank 0 never listened")
def hello(token, params_len=0, rank=1, world=2, magic=MAGIC):
    return struct.pack("<IiiII128s", magic, rank, world, 0, params_len, token.encode())
socks = []
s = conn(); s.sendall(hello("not-the-token-of-this-run")); socks.append(s)                      # (a) wrong token
s = conn(); s.sendall(hello("")); socks.append(s)                                                # (a) no token
s = conn(); s.sendall(os.urandom(4096)); socks.append(s)                                        # garbage
s = conn(); s.sendall(hello("", params_len=0xFFFFFFF0) + struct.pack("<IIQ", 1, 0, 1 << 40)); socks.append(s)  # (b) giant
s = conn(); s.sendall(struct.pack("<Iiii", 0x43534d58, 1, 2, 1234)); socks.append(s)            # old 16-byte hello
socks.append(conn())                                                                             # (c) silent
open(ready, "w").write("connected")  # the test starts its hello timeout clock from here
time.sleep(hold)
PY

# 1. Rank 0 of 2 waits; the strangers come first, the real rank 1 after the hello timeout
#    (3 s) has dropped the silent one.
port=$(free_port)
args=(--world 2 --master 127.0.0.1:$port --algo ring --sizes 4MiB --iters 2 --timeout 30s)
python3 "$TMP/measure.py" "$TMP/r0" "$EXEC" --rank 0 "${args[@]}" >"$TMP/out0" 2>"$TMP/err0" &
r0=$!
python3 "$TMP/strangers.py" "$port" 10 "$TMP/strangers.ready" >"$TMP/strangers.out" 2>&1 &
st=$!
# The silent stranger must have been connected longer than the hello timeout (3 s) when
# rank 1 arrives: wait for the last connection, not for a fixed time from the start (on a
# loaded machine rank 0 can take seconds to listen).
for _ in $(seq 600); do [[ -f $TMP/strangers.ready ]] && break; sleep 0.05; done
[[ -f $TMP/strangers.ready ]] || fail "the strangers never connected: $(cat "$TMP/strangers.out")"
sleep 4
# While rank 0 waits it listens on the master address only.
ss -ltn "sport = :$port" | grep -q "127.0.0.1:$port" || fail "rank 0 not listening on 127.0.0.1:$port: $(ss -ltn)"
"$EXEC" --rank 1 "${args[@]}" >"$TMP/out1" 2>"$TMP/err1" || fail "rank 1 failed: $(cat "$TMP/err1") / rank 0: $(cat "$TMP/err0")"
wait $r0
wait $st || fail "stranger script: $(cat "$TMP/strangers.out")"
[[ $(cat "$TMP/r0.rc") == 0 ]] || fail "rank 0 exited $(cat "$TMP/r0.rc") among strangers: $(cat "$TMP/err0")"
grep -q '"wrong":0' "$TMP/out0" || fail "no correct record from rank 0: $(cat "$TMP/out0")"
for why in "wrong or missing token" "wrong magic" "without a token" "sent no complete hello"; do
  grep -q "ignored a connection from 127.0.0.1:[0-9]*: .*$why" "$TMP/err0" || fail "no stranger logged as '$why': $(cat "$TMP/err0")"
done
[[ $(grep -c "ignored a connection from" "$TMP/err0") == 6 ]] || fail "expected 6 strangers logged: $(cat "$TMP/err0")"
# 1 TiB announced; the run itself needs a few MiB: peak RSS stays far below 200 MiB.
rss=$(cat "$TMP/r0.rss")
((rss < 200 * 1024)) || fail "rank 0 peak RSS $rss KiB among strangers"
echo "rank 0 peak RSS among strangers: $rss KiB"

# 2. A rank of the run (it has the token and the parameters) that sends a data header
#    whose length is not the schedule's: refused before allocating, exit 2 naming it.
"$EXEC" --local 2 --algo ring --sizes 4MiB --iters 1 --per-transfer >"$TMP/pt" 2>&1 || fail "--per-transfer: $(cat "$TMP/pt")"
tid=$(python3 -c 'import json,sys; print(next(t["id"] for t in json.loads(open(sys.argv[1]).readline())["transfers"] if t["src"] == 1 and t["dst"] == 0))' "$TMP/pt")
version=$("$EXEC" --version)
version=${version#collsim-exec }
port=$(free_port)
python3 "$TMP/measure.py" "$TMP/g0" "$EXEC" --rank 0 --world 2 --master 127.0.0.1:$port --algo ring --sizes 4MiB \
  --warmup 1 --iters 2 --timeout 20s >/dev/null 2>"$TMP/gerr" &
g0=$!
python3 - "$port" "$COLLSIM_EXEC_TOKEN" "$version" "$tid" <<'PY' || fail "impersonator failed"
import socket, struct, sys, time
port, token, version, tid = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
params = f"version {version}\n--op allreduce\n--algo ring\n--sizes 4194304\n--warmup 1\n--iters 2\n".encode()
for _ in range(200):
    try:
        s = socket.create_connection(("127.0.0.1", port)); break
    except OSError:
        time.sleep(0.05)
s.sendall(struct.pack("<IiiII128s", 0x43534d59, 1, 2, 1, len(params), token.encode()) + params)
s.sendall(struct.pack("<IIQ", 1, tid, 1 << 40))  # Data, a transfer rank 1 sends rank 0, 1 TiB
s.settimeout(20)
try:
    while s.recv(65536):
        pass
except OSError:
    pass
PY
wait $g0
[[ $(cat "$TMP/g0.rc") == 2 ]] || fail "rank 0 took a 1 TiB message: exit $(cat "$TMP/g0.rc"): $(cat "$TMP/gerr")"
grep -q "refused a message from rank 1: 1099511627776 bytes for transfer $tid, the schedule says 2097152" "$TMP/gerr" ||
  fail "giant length not named: $(cat "$TMP/gerr")"
rss=$(cat "$TMP/g0.rss")
((rss < 200 * 1024)) || fail "rank 0 peak RSS $rss KiB after a 1 TiB header"
echo "rank 0 peak RSS after a 1 TiB data header: $rss KiB"

# 3. Mismatched parameters: both ranks exit 2 at the handshake, naming the option.
mismatch() {  # mismatch OPTION RANK0_ARGS -- RANK1_ARGS
  local opt=$1 a0=() a1=(); shift
  while [[ $1 != -- ]]; do a0+=("$1"); shift; done
  shift; a1=("$@")
  local p; p=$(free_port)
  local start=$SECONDS
  "$EXEC" --rank 1 --world 2 --master 127.0.0.1:$p --timeout 20s "${a1[@]}" >/dev/null 2>"$TMP/m1" &
  local m1=$!
  local rc0=0 rc1=0
  "$EXEC" --rank 0 --world 2 --master 127.0.0.1:$p --timeout 20s "${a0[@]}" >/dev/null 2>"$TMP/m0" || rc0=$?
  wait $m1 || rc1=$?
  [[ $rc0 == 2 && $rc1 == 2 ]] || fail "$opt mismatch: rank 0 exit $rc0, rank 1 exit $rc1: $(cat "$TMP/m0" "$TMP/m1")"
  grep -q -- "different run parameters: $opt" "$TMP/m0" || fail "rank 0 does not name $opt: $(cat "$TMP/m0")"
  grep -q -- "different run parameters: $opt" "$TMP/m1" || fail "rank 1 does not name $opt: $(cat "$TMP/m1")"
  ((SECONDS - start < 10)) || fail "$opt mismatch took $((SECONDS - start)) s (found at the timeout, not the handshake?)"
}
mismatch --iters --iters 2 -- --iters 3
mismatch --algo --algo ring -- --algo ring,ps
mismatch --sizes --sizes 1MiB -- --sizes 1MiB,2MiB
# The same sizes spelled differently agree.
p=$(free_port)
"$EXEC" --rank 1 --world 2 --master 127.0.0.1:$p --sizes 1048576B --iters 1 >/dev/null 2>"$TMP/s1" &
s1=$!
"$EXEC" --rank 0 --world 2 --master 127.0.0.1:$p --sizes 1MiB --iters 1 >/dev/null 2>"$TMP/s0" || fail "1MiB vs 1048576B: $(cat "$TMP/s0")"
wait $s1 || fail "1MiB vs 1048576B (rank 1): $(cat "$TMP/s1")"

# 4. A rank with another token is a stranger to rank 0 and says why it got no answer.
p=$(free_port)
"$EXEC" --rank 0 --world 2 --master 127.0.0.1:$p --timeout 4s >/dev/null 2>"$TMP/t0" &
t0=$!
rc=0
"$EXEC" --rank 1 --world 2 --master 127.0.0.1:$p --timeout 4s --token wrong-token-0123456789 >/dev/null 2>"$TMP/t1" || rc=$?
wait $t0 && fail "rank 0 completed without its rank 1"
[[ $rc == 2 ]] && grep -q "same on every rank" "$TMP/t1" || fail "wrong token: rank 1 exit $rc: $(cat "$TMP/t1")"
grep -q "wrong or missing token" "$TMP/t0" || fail "rank 0 did not log the wrong token: $(cat "$TMP/t0")"

# 5. Up-front errors (exit 2, nothing started).
run_exec() { rc=0; "$EXEC" "$@" >"$TMP/eout" 2>"$TMP/eerr" || rc=$?; }
(unset COLLSIM_EXEC_TOKEN; run_exec --rank 0 --world 2 --master 127.0.0.1:1; [[ $rc == 2 ]] && grep -q -- "--token" "$TMP/eerr") ||
  fail "no token: $(cat "$TMP/eerr")"
run_exec --rank 0 --world 2 --token short; [[ $rc == 2 ]] && grep -q -- "16..128 characters" "$TMP/eerr" || fail "short token: $(cat "$TMP/eerr")"
for algo in nvls sharp collnet_direct; do
  run_exec --local 2 --algo $algo
  [[ $rc == 2 ]] && grep -q "in-network reduction" "$TMP/eerr" || fail "$algo: exit $rc: $(cat "$TMP/eerr")"
done
marker=orphan-check-$$-$RANDOM
start=$SECONDS
run_exec --local 3 --output /nonexistent-dir/$$/x.jsonl --label "$marker" --timeout 60s
[[ $rc == 2 ]] && grep -q -- "--output" "$TMP/eerr" || fail "unwritable --output: exit $rc: $(cat "$TMP/eerr")"
((SECONDS - start < 5)) || fail "unwritable --output took $((SECONDS - start)) s"
sleep 0.2
pgrep -f -- "$marker" >/dev/null && fail "collsim-exec processes left behind: $(pgrep -af -- "$marker")"
echo "ok"
