# Helpers for CLI tests. Each test script is run as: bash tests/cli/NAME.sh COLLSIM SOURCE_DIR
set -u
COLLSIM=$1
SRC=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# expect_error CODE SUBSTRING... -- ARGS: runs collsim ARGS, checks the exit code and that stderr has each substring.
expect_error() {
  local code=$1; shift
  local subs=()
  while [[ $1 != -- ]]; do subs+=("$1"); shift; done
  shift
  local rc=0
  "$COLLSIM" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
  [[ $rc == "$code" ]] || fail "collsim $* exited $rc, expected $code; stderr: $(cat "$TMP/err")"
  [[ $(wc -l <"$TMP/err") -ge 1 ]] || fail "collsim $* printed no error message"
  for s in "${subs[@]}"; do grep -qF -- "$s" "$TMP/err" || fail "collsim $* stderr lacks '$s': $(cat "$TMP/err")"; done
}
