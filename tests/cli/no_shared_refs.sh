# The repository stands alone: no tracked file may point outside it at the sibling folder of
# shared reference data. The pattern is built from pieces so that this file does not match it.
source "$(dirname "$0")/lib.bash"
pat='\.\.''/shared'
if git -C "$SRC" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  rc=0
  git -C "$SRC" grep -n -e "$pat" >"$TMP/hits" || rc=$?
  [[ $rc == 0 || $rc == 1 ]] || fail "git grep failed (exit $rc)"
else
  grep -rn --exclude-dir=.git --exclude-dir='build*' -e "$pat" "$SRC" >"$TMP/hits" || true
fi
[[ ! -s $TMP/hits ]] || fail "references to a path outside the repository: $(cat "$TMP/hits")"
echo "ok: no references outside the repository"
