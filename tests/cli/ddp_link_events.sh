# collsim ddp --scenario (issue 20, link events during a step): a NIC degraded 10-40 ms into
# a BERT-large step on the 4 x DGX H100 rail cluster slows the collectives that start or
# run while it is down, reported against the healthy step; events after the step change
# nothing; ZeRO/FSDP steps too (HYBRID_SHARD's intra-node collectives never touch the NIC);
# a host cut off mid-step is an error naming it and the event's own time; the same input
# gives the same bytes; bad combinations exit 2 naming the flag.
source "$(dirname "$0")/lib.bash"
base=(ddp --topology "$SRC/topologies/4x-dgx-h100-rail-8x400g-ib.json" --workload bert-large)
step="$SRC/examples/scenarios/dgx-h100-nic-degraded-step.json"
"$COLLSIM" "${base[@]}" --format json >"$TMP/healthy.json" 2>"$TMP/err" || fail "ddp: $(cat "$TMP/err")"
"$COLLSIM" "${base[@]}" --scenario "$step" --format json >"$TMP/ev.json" 2>"$TMP/err" || fail "ddp --scenario: $(cat "$TMP/err")"
python3 - "$TMP/ev.json" "$TMP/healthy.json" <<'PY' || fail "the step with events does not add up: $(head -c 900 "$TMP/ev.json")"
import json, sys
d, h = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
e = d["link_events"]
assert e["healthy_iteration_ps"] == h["iteration_ps"], (e["healthy_iteration_ps"], h["iteration_ps"])
assert d["iteration_ps"] > h["iteration_ps"], (d["iteration_ps"], h["iteration_ps"])
assert e["changed"] and e["plays"] >= 2, e
for c in e["changed"]:
    # Only collectives that meet the degraded NIC (10-40 ms) change, and only for the worse.
    assert c["with_events_ps"] > c["healthy_ps"], c
    assert c["start_ps"] < 40e9 and c["start_ps"] + c["with_events_ps"] > 10e9, c
# Each bucket's all-reduce in the report is the one priced at its own start.
starts = {b["index"]: b["start_ps"] for b in d["buckets"]}
for c in e["changed"]:
    k = int(c["collective"].split()[-1])
    assert starts[k] == c["start_ps"], (k, starts[k], c)
PY
"$COLLSIM" "${base[@]}" --scenario "$step" >"$TMP/a.txt" 2>&1 || fail "ddp --scenario (table)"
"$COLLSIM" "${base[@]}" --scenario "$step" >"$TMP/b.txt" 2>&1 || fail "ddp --scenario (again)"
cmp -s "$TMP/a.txt" "$TMP/b.txt" || fail "the same scenario gave different bytes"
grep -q "^# link events (.*dgx-h100-nic-degraded-step.json): iteration .* against .* on healthy links" "$TMP/a.txt" ||
  fail "no link-events line: $(tail -5 "$TMP/a.txt")"
cat >"$TMP/late.json" <<'JSON'
{"events": [{"at": "900ms", "action": "fail", "node": "h0/nic3"}]}
JSON
"$COLLSIM" "${base[@]}" --scenario "$TMP/late.json" --format json >"$TMP/late.out" 2>&1 || fail "a scenario after the step"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); e=d['link_events']; assert e['changed']==[] and d['iteration_ps']==e['healthy_iteration_ps'], e" \
  "$TMP/late.out" || fail "events after the step changed it: $(head -c 600 "$TMP/late.out")"
for strategy in fsdp_full_shard fsdp_hybrid_shard; do
  "$COLLSIM" "${base[@]}" --sharding $strategy --scenario "$step" --format json >"$TMP/s.json" 2>&1 || fail "$strategy --scenario: $(cat "$TMP/s.json")"
  python3 - "$TMP/s.json" "$strategy" <<'PY' || fail "$strategy: $(head -c 900 "$TMP/s.json")"
import json, sys
d, strategy = json.load(open(sys.argv[1])), sys.argv[2]
e = d["link_events"]
assert d["iteration_ps"] > e["healthy_iteration_ps"] and e["changed"], e
if strategy == "fsdp_hybrid_shard":
    # Reduce-scatters and all-gathers stay inside a host: only the cross-host all-reduces meet the NIC.
    assert all(c["collective"].startswith("allreduce") for c in e["changed"]), [c["collective"] for c in e["changed"]]
PY
done
{
  printf '{"events": ['
  for n in 0 1 2 3 4 5 6; do printf '{"at": "5ms", "action": "fail", "node": "h1/nic%d"}, ' $n; done
  printf '{"at": "5ms", "action": "fail", "node": "h1/nic7"}]}'
} >"$TMP/cut.json"
expect_error 2 "$TMP/cut.json" "/events/7" "h1/nic7 at 5ms" "host h1/host has no working link" -- "${base[@]}" --scenario "$TMP/cut.json"
expect_error 2 "--scenario" "one condition per run" -- "${base[@]}" --scenario "$step" --rank-speed 3:0.5
expect_error 2 "--scenario" "one condition per run" -- "${base[@]}" --scenario "$step" --steps 4 --membership 2:24
expect_error 2 "$TMP/none.json" -- "${base[@]}" --scenario "$TMP/none.json"
exit 0
