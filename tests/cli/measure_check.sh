# collsim check: the shipped golden baseline passes; a moved figure fails with a diff
# table (exit 1); --update rewrites; bad baselines exit 2.
source "$(dirname "$0")/lib.bash"
"$COLLSIM" check --baseline "$SRC"/results/golden/*.json >"$TMP/ok" 2>&1 || fail "golden baseline fails: $(cat "$TMP/ok")"
grep -q "every prediction within 0.5%" "$TMP/ok" || fail "no verdict: $(cat "$TMP/ok")"

# A copy whose first time is 1 % off: beyond 0.5 %, within 2 %.
mkdir -p "$TMP/golden"
python3 - "$SRC/results/golden/h100_node_ring_allreduce.json" "$TMP/golden/moved.json" "$SRC" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["root"] = sys.argv[3]
d["expected"]["rows"][0]["time_us"] *= 1.01
json.dump(d, open(sys.argv[2], "w"), indent=2)
PY
expect_error 1 "figures moved beyond 0.5%" -- check --baseline "$TMP/golden/moved.json"
grep -q "/rows/0/time_us" "$TMP/out" || fail "diff table lacks the moved field: $(cat "$TMP/out")"
"$COLLSIM" check --baseline "$TMP/golden/moved.json" --tolerance 2% >/dev/null || fail "1 % change fails a 2 % tolerance"
"$COLLSIM" check --baseline "$TMP/golden/moved.json" --update >/dev/null || fail "--update failed"
"$COLLSIM" check --baseline "$TMP/golden/moved.json" >/dev/null || fail "after --update the baseline still fails"

# Versions: --update records this collsim's version after the description; a baseline
# recorded by another release passes (the version is not a prediction) with a note naming it.
version=$("$COLLSIM" --version) && version=${version#collsim }
python3 - "$TMP/golden/moved.json" "$version" <<'PY' || fail "--update did not record the version: $(head -4 "$TMP/golden/moved.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert list(d)[:2] == ["description", "collsim_version"] and d["collsim_version"] == sys.argv[2], list(d)[:3]
d["collsim_version"] = "0.0.1+gabcdef0"
d["expected"]["collsim_version"] = "0.0.1+gabcdef0"
json.dump(d, open(sys.argv[1], "w"), indent=2)
PY
"$COLLSIM" check --baseline "$TMP/golden/moved.json" >"$TMP/old" || fail "a baseline from another version fails: $(cat "$TMP/old")"
grep -qF "moved.json was recorded by collsim 0.0.1+gabcdef0 (this is $version)" "$TMP/old" ||
  fail "no note on the other version: $(cat "$TMP/old")"

# Bad baselines.
expect_error 2 "nope.json" "unreadable" -- check --baseline "$TMP/nope.json"
echo '{"command": "collective"}' >"$TMP/golden/bad.json"
expect_error 2 "bad.json" "/command" -- check --baseline "$TMP/golden/bad.json"
echo '{"command": ["collective"], "expected": {}, "colour": 1}' >"$TMP/golden/extra.json"
expect_error 2 "extra.json" "colour" -- check --baseline "$TMP/golden/extra.json"
# A baseline whose command is `check` (on itself) is refused, not run without end.
echo "{\"root\": \".\", \"command\": [\"check\", \"--baseline\", \"$TMP/golden/self.json\"], \"expected\": {}}" >"$TMP/golden/self.json"
expect_error 2 "self.json" "/command" "a command other than check" -- check --baseline "$TMP/golden/self.json"
# A stored command that no longer runs is a failure of the check (exit 1), not bad input.
echo '{"root": ".", "command": ["collective", "--algo", "warp"], "expected": {}}' >"$TMP/golden/broken.json"
expect_error 1 "figures moved" -- check --baseline "$TMP/golden/broken.json"
echo "ok"
