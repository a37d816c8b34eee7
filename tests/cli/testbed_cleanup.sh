# testbed.sh up leaves nothing behind when it is hung up on (SIGHUP: the terminal closed)
# or quit (SIGQUIT) half-way, and refuses a --topology file in a folder that does not exist
# before it makes anything (exit 2). Skips (exit 77) when not root or tc/netns missing.
source "$(dirname "$0")/lib.bash"
need_testbed "test-bed cleanup"

# Our own prefix, subnet and state dir, so no other test bed is touched.
export COLLSIM_TESTBED_PREFIX=ctcl$$ COLLSIM_TESTBED_SUBNET=10.78.$((RANDOM % 200)) COLLSIM_TESTBED_STATE=$TMP/state
TB="$SRC/scripts/testbed.sh"
trap 'bash "$TB" down >/dev/null 2>&1; rm -rf "$TMP"' EXIT
left() { ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^${COLLSIM_TESTBED_PREFIX}-" | tr '\n' ' ' || true; }

rc=0
bash "$TB" up 2 200mbit 9000 --topology "$TMP/no/such/folder/topo.json" >"$TMP/out" 2>&1 || rc=$?
[[ $rc == 2 ]] || fail "up with --topology in a missing folder exited $rc, expected 2: $(cat "$TMP/out")"
grep -qF -- "--topology" "$TMP/out" || fail "the refusal does not name --topology: $(cat "$TMP/out")"
[[ -z $(left) ]] || fail "up with a missing --topology folder left namespaces: $(left)"

# A tc that stalls its first call, so the signal lands while up is half-way (the switch
# and a host exist); later calls, the cleanup's included, are the real tc.
real_tc=$(command -v tc)
mkdir -p "$TMP/bin"
cat >"$TMP/bin/tc" <<EOF
#!/usr/bin/env bash
if mkdir "$TMP/stalled" 2>/dev/null; then sleep 3; fi
exec "$real_tc" "\$@"
EOF
chmod +x "$TMP/bin/tc"
for sig in HUP QUIT; do
  rm -rf "$TMP/stalled"
  # A background job of a script starts with SIGQUIT ignored; give up the default back.
  PATH="$TMP/bin:$PATH" env --default-signal=QUIT bash "$TB" up 3 200mbit 9000 >"$TMP/out" 2>&1 &
  pid=$!
  for _ in $(seq 200); do [[ -d $TMP/stalled ]] && break; sleep 0.05; done
  [[ -d $TMP/stalled ]] || fail "up never reached tc: $(cat "$TMP/out")"
  [[ -n $(left) ]] || fail "no namespace exists while up is half-way: the test would prove nothing"
  kill -s "$sig" "$pid"
  rc=0
  wait "$pid" || rc=$?
  [[ $rc != 0 ]] || fail "up exited 0 after SIG$sig"
  [[ -z $(left) ]] || fail "up hung up on with SIG$sig left namespaces: $(left); output: $(cat "$TMP/out")"
done
echo "ok"
