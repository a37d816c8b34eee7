# collsim topo nccl: NCCL's channel graph and tuning figures for shipped topologies, the
# one-line answer where NCCL's graph does not apply, JSON, determinism and bad input.
source "$(dirname "$0")/lib.bash"
T=$SRC/topologies

# 4 x DGX H100, one 400G NIC per GPU: successive ring channels leave by successive NICs,
# so with at least 8 channels every NIC (NET/0 .. NET/7) carries one.
"$COLLSIM" topo nccl "$T/4x-dgx-h100-rail-8x400g-ib.json" >"$TMP/h100" || fail "topo nccl h100 exited $?"
grep -q '^Pattern 4 (ring), crossNic 0, nChannels ' "$TMP/h100" || fail "no ring graph line: $(cat "$TMP/h100")"
grep -q '^ranks 32, hosts 4 (8 GPUs each), GPU generation hopper, NICs per host 8, host CPU intel-sapphire-rapids$' "$TMP/h100" ||
  fail "header: $(head -4 "$TMP/h100")"
for k in 0 1 2 3 4 5 6 7; do
  grep -Eq "^  [0-9]+ : NET/$k GPU/.* NET/$k( |$)" "$TMP/h100" || fail "no channel leaves by NET/$k: $(cat "$TMP/h100")"
done
grep -q '^ring      simple ' "$TMP/h100" || fail "no ring/simple tuning row: $(cat "$TMP/h100")"
grep -q '^# nvls not listed: ' "$TMP/h100" || fail "nvls (4 hosts) should be left out with its reason"
# Deterministic: same input, same bytes.
"$COLLSIM" topo nccl "$T/4x-dgx-h100-rail-8x400g-ib.json" | cmp -s - "$TMP/h100" || fail "text output differs between runs"

# DGX-1 (V100 hybrid cube-mesh): not every GPU pair has an NVLink, but NCCL's rings use
# only pairs that do, so every hop of every channel, the closing hop included, is NVL in
# the GPU matrix.
"$COLLSIM" topo nccl "$T/dgx1-v100.json" >"$TMP/dgx1" || fail "topo nccl dgx1 exited $?"
grep -q ', type NVL/' "$TMP/dgx1" || fail "DGX-1 ring is not NVL inside the host: $(cat "$TMP/dgx1")"
python3 - "$TMP/dgx1" <<'PY' || fail "DGX-1 channel hops: $(cat "$TMP/dgx1")"
import re, sys
lines = open(sys.argv[1]).read().splitlines()
start = next(i for i, l in enumerate(lines) if l.startswith(" ") and l.split()[:1] == ["GPU0"])
header = lines[start].split()
matrix = {}
for l in lines[start + 1:start + 1 + len(header)]:
    cells = l.split()
    matrix[int(cells[0][3:])] = cells[1:]
assert len(matrix) == 8, matrix
assert any(row[j] != "NVL" for i, row in matrix.items() for j in range(8) if j != i), "DGX-1 is not all-to-all NVLink"
channels = [l for l in lines if re.match(r"^  \d+ : GPU/", l)]
assert channels, "no channel lines"
for l in channels:
    gpus = [int(g) for g in re.findall(r"GPU/(\d+)", l.split(":", 1)[1])]
    assert sorted(gpus) == list(range(8)), l
    for a, b in zip(gpus, gpus[1:] + gpus[:1]):
        assert matrix[a][b] == "NVL", f"{l}: hop GPU{a}->GPU{b} is {matrix[a][b]}"
PY

# CPU-only ranks: one line saying why, exit 0.
"$COLLSIM" topo nccl "$T/tcp-16x25gbe.json" >"$TMP/tcp" || fail "topo nccl tcp exited $?"
[[ $(wc -l <"$TMP/tcp") == 1 ]] || fail "expected one line: $(cat "$TMP/tcp")"
grep -q "NCCL's channel graph does not apply: rank 0 runs on host node" "$TMP/tcp" || fail "tcp: $(cat "$TMP/tcp")"

# JSON: parses, says the same things, and is deterministic.
for f in 4x-dgx-h100-rail-8x400g-ib dgx1-v100 tcp-16x25gbe; do
  "$COLLSIM" topo nccl "$T/$f.json" --format json >"$TMP/$f.json" || fail "topo nccl --format json $f exited $?"
  python3 -c 'import json,sys; json.load(sys.stdin)' <"$TMP/$f.json" || fail "$f: JSON does not parse"
  "$COLLSIM" topo nccl "$T/$f.json" --format json | cmp -s - "$TMP/$f.json" || fail "$f: JSON differs between runs"
done
python3 - "$TMP" <<'PY' || fail "JSON contents"
import json, sys
d = sys.argv[1]
h = json.load(open(f"{d}/4x-dgx-h100-rail-8x400g-ib.json"))
assert h["applies"] and h["hosts"] == 4 and h["nics_per_host"] == 8, h
assert sorted({c["nic"] for c in h["ring"]["per_channel"]}) == list(range(8)), h["ring"]
assert len(h["ring"]["per_channel"]) == h["ring"]["channels"]
t = json.load(open(f"{d}/tcp-16x25gbe.json"))
assert t["applies"] is False and "not on a GPU" in t["reason"], t
PY

# Bad input: exit 2 naming the file or the option.
expect_error 2 "$TMP/missing.json" "does not exist" -- topo nccl "$TMP/missing.json"
expect_error 2 "--format" "\"csv\"" "text, json" -- topo nccl "$T/dgx1-v100.json" --format csv
expect_error 2 "required" -- topo nccl
exit 0
