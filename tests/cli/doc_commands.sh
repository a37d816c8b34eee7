# Runs every command block of the documentation that is marked runnable, so what the docs
# show keeps working. A block is runnable when its opening fence is exactly "```bash runnable";
# other blocks (plain ```bash, ```text, ```json) are illustrative and not run.
#
# Each runnable block of README.md and docs/*.md runs with bash -eu -o pipefail, on its own,
# in a fresh empty directory that holds links to the repository's input folders
# (topologies, workloads, plans, results, tests, scripts, examples), with the just-built collsim and
# collsim-exec first on PATH and COLLSIM_ROOT set to the repository root. A block that exits
# non-zero fails the test, naming the file and line of the command that failed.
source "$(dirname "$0")/lib.bash"
EXEC=$(dirname "$COLLSIM")/collsim-exec
[[ -x $EXEC ]] || fail "collsim-exec not built next to $COLLSIM"
mkdir -p "$TMP/bin" "$TMP/blocks"
ln -s "$(realpath "$COLLSIM")" "$TMP/bin/collsim"
ln -s "$(realpath "$EXEC")" "$TMP/bin/collsim-exec"
export COLLSIM_ROOT=$(realpath "$SRC")
export PATH="$TMP/bin:$PATH"

docs=("$COLLSIM_ROOT/README.md" "$COLLSIM_ROOT"/docs/*.md)
# Extract: block N goes to blocks/N.sh; blocks/index has "N FILE FENCE_LINE" per block.
# A fence that mentions "runnable" but is indented or otherwise decorated would be skipped
# silently, so it is an error.
for doc in "${docs[@]}"; do
  rel=${doc#"$COLLSIM_ROOT"/}
  awk -v rel="$rel" -v dir="$TMP/blocks" '
    BEGIN { n = 0; while ((getline line < (dir "/count")) > 0) n = line + 0 }
    inblock && /^```[ \t]*$/ { inblock = 0; close(out); next }
    inblock { print > out; next }
    /^```bash runnable[ \t]*$/ { inblock = 1; n++; out = dir "/" n ".sh"; printf "" > out
                                 print n, rel, NR >> (dir "/index"); next }
    /^[ \t>]*```/ && /runnable/ { printf "%s:%d: a runnable fence must read exactly ```bash runnable at the start of the line\n", rel, NR; bad = 1 }
    END { print n > (dir "/count"); if (inblock) { printf "%s: unterminated runnable block\n", rel; bad = 1 } exit bad }
  ' "$doc" || fail "malformed runnable block in $rel"
done
[[ -s $TMP/blocks/index ]] || fail "no runnable blocks found in README.md or docs/*.md"

failures=0
while read -r n rel fence; do
  work="$TMP/run/$n"
  mkdir -p "$work"
  for d in topologies workloads plans results tests scripts examples; do ln -s "$COLLSIM_ROOT/$d" "$work/$d"; done
  # Line 1 of the script is the trap; block line k is script line k + 1 and doc line fence + k.
  { echo 'trap '\''echo "$LINENO" > "'"$work"'/.failed"'\'' ERR'; cat "$TMP/blocks/$n.sh"; } > "$TMP/blocks/$n.run"
  rc=0
  (cd "$work" && timeout 60 bash -eu -o pipefail "$TMP/blocks/$n.run") >"$work/.out" 2>"$work/.err" </dev/null || rc=$?
  if [[ $rc != 0 ]]; then
    line=$fence
    [[ -s $work/.failed ]] && line=$((fence + $(head -1 "$work/.failed") - 1))
    echo "FAIL: $rel:$line: runnable block (fence at line $fence) exited $rc" >&2
    tail -n 20 "$work/.err" | sed 's/^/  stderr: /' >&2
    failures=$((failures + 1))
  fi
done <"$TMP/blocks/index"
total=$(wc -l <"$TMP/blocks/index")
[[ $failures == 0 ]] || fail "$failures of $total runnable documentation blocks failed"
echo "ok: $total runnable documentation blocks ran"
