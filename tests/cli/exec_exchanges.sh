# collsim-exec runs rd and rhd correctly: their pairwise exchanges and multi-write chunks
# need the executor to order each rank's reads and writes of a chunk as the symbolic
# executor does (exec_session.cpp, order_chunk_access). Before that, rd and rhd failed the
# result check (wrong > 0) on 4 or more ranks. Power-of-two and folded rank counts, an
# uneven size (tail bytes) and several iterations (arrival orders differ between them).
source "$(dirname "$0")/lib.bash"
EXEC=$(dirname "$COLLSIM")/collsim-exec
[[ -x $EXEC ]] || fail "collsim-exec not built next to $COLLSIM"
for n in 4 5 8; do
  "$EXEC" --local "$n" --algo rd,rhd --sizes 1000003B,64KiB --iters 3 --timeout 20s >"$TMP/r$n" 2>"$TMP/e$n" ||
    fail "rd/rhd on $n ranks failed: $(cat "$TMP/e$n")"
  python3 - "$TMP/r$n" "$n" <<'PY' || fail "rd/rhd on $n ranks: $(cat "$TMP/r$n")"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
assert [(r["algorithm"], r["size"]) for r in recs] == [("rd", 1000003), ("rd", 65536), ("rhd", 1000003), ("rhd", 65536)], recs
assert all(r["wrong"] == 0 and r["ranks"] == int(sys.argv[2]) for r in recs), recs
PY
done
echo "ok"
