# Same input, same output bytes: each format, run twice, compared byte for byte.
source "$(dirname "$0")/lib.bash"
for fmt in table json csv; do
  for algo in ring ps; do
    "$COLLSIM" collective --algo $algo --sizes 8B:64MiB --factor 4 --format $fmt >"$TMP/a" || fail "run 1 ($fmt, $algo)"
    "$COLLSIM" collective --algo $algo --sizes 8B:64MiB --factor 4 --format $fmt >"$TMP/b" || fail "run 2 ($fmt, $algo)"
    cmp -s "$TMP/a" "$TMP/b" || fail "$fmt/$algo output differs between two runs"
    [[ -s $TMP/a ]] || fail "$fmt/$algo printed nothing"
  done
done
echo "determinism: ok"
