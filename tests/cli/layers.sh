# The layers of sim/ (scripts/layers.sh): no folder includes one above it; sim/topo includes
# nothing from sim/net (loading a topology runs nothing); the simulator library
# (collsim_lib) holds no socket code, which lives in collsim_exec_lib. The checker itself
# is tested on a small tree with one include that points up.
source "$(dirname "$0")/lib.bash"
BUILD=$(cd "$(dirname "$COLLSIM")" && pwd)

bash "$SRC/scripts/layers.sh" "$SRC" >"$TMP/layers" 2>&1 || fail "scripts/layers.sh exited $?: $(cat "$TMP/layers")"
cat "$TMP/layers"
grep -q '^  cli      -> core ' "$TMP/layers" || fail "layers.sh printed no cli -> core edge"
grep -q '^ok: ' "$TMP/layers" || fail "layers.sh printed no verdict"

# sim/topo includes nothing from sim/net (said again here, whatever the layer order says).
if grep -rnE '#[[:space:]]*include[[:space:]]*"sim/net/' "$SRC/sim/topo" >"$TMP/topo_net"; then
  fail "sim/topo includes sim/net: $(cat "$TMP/topo_net")"
fi

# The sources of collsim_lib: from the build's compile database when there is one (the
# objects under CMakeFiles/collsim_lib.dir/; in a unity build, the .cpp files that its
# batch files include), else every .cpp under sim/ but cli and exec.
if [[ -f $BUILD/compile_commands.json ]]; then
  python3 - "$BUILD/compile_commands.json" "$SRC" >"$TMP/lib_sources" <<'PY' || fail "cannot read compile_commands.json"
import json, os, sys
src = os.path.realpath(sys.argv[2])
for entry in json.load(open(sys.argv[1])):
    command = entry.get("command", " ".join(entry.get("arguments", [])))
    if "CMakeFiles/collsim_lib.dir/" not in command:
        continue
    path = os.path.realpath(os.path.join(entry["directory"], entry["file"]))
    files = [path]
    if path.endswith(".cxx") and "/Unity/" in path:  # a unity batch: #include "/abs/file.cpp" lines
        files = [line.split('"')[1] for line in open(path) if line.startswith("#include")]
    for f in files:
        f = os.path.realpath(f)
        if f.endswith(".cpp") and f.startswith(src + "/"):
            print(os.path.relpath(f, src))
PY
else
  (cd "$SRC" && find sim -name '*.cpp' ! -path 'sim/cli/*' ! -path 'sim/exec/*') >"$TMP/lib_sources"
fi
LC_ALL=C sort -u -o "$TMP/lib_sources" "$TMP/lib_sources"
[[ $(wc -l <"$TMP/lib_sources") -ge 50 ]] || fail "found only $(wc -l <"$TMP/lib_sources") collsim_lib sources"
grep -q '^sim/exec/' "$TMP/lib_sources" && fail "collsim_lib compiles executor sources: $(grep '^sim/exec/' "$TMP/lib_sources" | tr '\n' ' ')"
grep -q '^sim/core/units.cpp$' "$TMP/lib_sources" || fail "collsim_lib sources lack sim/core/units.cpp"

# Those sources and every sim/ header they include, followed to the end, include no socket
# header.
cp "$TMP/lib_sources" "$TMP/closure"
while :; do
  (cd "$SRC" && xargs grep -h -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"sim/' <"$TMP/closure" |
    sed -E 's/.*"(sim\/[^"]+)".*/\1/') | cat - "$TMP/closure" | LC_ALL=C sort -u >"$TMP/next"
  cmp -s "$TMP/next" "$TMP/closure" && break
  mv "$TMP/next" "$TMP/closure"
done
grep -q '^sim/exec/' "$TMP/closure" && fail "collsim_lib includes executor headers: $(grep '^sim/exec/' "$TMP/closure" | tr '\n' ' ')"
SOCKETS='^[[:space:]]*#[[:space:]]*include[[:space:]]*<(sys/socket\.h|netinet/[^>]*|arpa/inet\.h|netdb\.h|sys/un\.h)>'
if (cd "$SRC" && xargs grep -nHE "$SOCKETS" <"$TMP/closure") >"$TMP/sockets"; then
  fail "collsim_lib includes socket headers: $(cat "$TMP/sockets")"
fi
# ...while the executor does: the check above would notice sockets if there were any.
grep -qE "$SOCKETS" "$SRC/sim/exec/mesh.cpp" || fail "sim/exec/mesh.cpp includes no socket header (is the pattern right?)"

# The archive itself calls no socket function (when the build left it where expected).
if [[ -f $BUILD/libcollsim_lib.a ]] && command -v nm >/dev/null; then
  nm -u "$BUILD/libcollsim_lib.a" 2>/dev/null | awk '{print $2}' |
    grep -xE 'socket|bind|listen|accept4?|connect|setsockopt|getsockopt|recv|send|recvmsg|sendmsg|inet_pton' |
    LC_ALL=C sort -u >"$TMP/socket_calls" || true
  [[ ! -s $TMP/socket_calls ]] || fail "libcollsim_lib.a calls socket functions: $(tr '\n' ' ' <"$TMP/socket_calls")"
fi

# The checker: a tree in which core includes cli fails, naming the file and line.
mkdir -p "$TMP/tree/sim/core" "$TMP/tree/sim/cli"
printf '#pragma once\n' >"$TMP/tree/sim/cli/commands.hpp"
printf '#pragma once\n#include <vector>\n#include "sim/cli/commands.hpp"\n' >"$TMP/tree/sim/core/units.hpp"
rc=0
bash "$SRC/scripts/layers.sh" "$TMP/tree" >"$TMP/bad" 2>&1 || rc=$?
[[ $rc == 1 ]] || fail "layers.sh on an upward include exited $rc, expected 1: $(cat "$TMP/bad")"
grep -qF 'sim/core/units.hpp:3: core includes sim/cli/commands.hpp' "$TMP/bad" ||
  fail "layers.sh did not name the upward include: $(cat "$TMP/bad")"
echo "ok: layers hold, sim/topo does not include sim/net, collsim_lib has no socket code"
