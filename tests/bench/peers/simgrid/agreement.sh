# collsim and SimGrid's pure max-min model predict the same all-reduce times on the star
# (100 Gb/s split-duplex host links, 1 us each) within 1e-6 relative.
# Usage: agreement.sh COLLSIM SIMGRID_PEER   (the peer: allreduce_peer.cpp beside this script)
# A case where either side gives no number fails; nothing here is skipped.
set -u
collsim=$1 peer=$2
for bin in "$collsim" "$peer"; do
  [[ -x $bin ]] || { echo "FAIL: $bin is not an executable"; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
S=67108864
status=0
check() {  # check COLLSIM_ALGO PEER_ALGO N [EXTRA COLLSIM ARGS]
  local algo=$1 peer_algo=$2 n=$3
  shift 3
  printf '{"generator": {"kind": "star", "hosts": %d, "bandwidth": "100Gbps", "latency": "1us"}}\n' "$n" >"$tmp/star.json"
  local ours theirs
  ours=$("$collsim" collective --topology "$tmp/star.json" --algo "$algo" --sizes "${S}B" --format csv "$@" | tail -1 | cut -d, -f8)
  theirs=$("$peer" "$peer_algo" "$n" "$S" 12.5e9 1e-6 star --cfg=network/model:CM02 --cfg=network/crosstraffic:0 2>"$tmp/peer.err" \
           | grep -o 'predicted_s=[^ ]*' | cut -d= -f2)
  if [[ -z $ours || -z $theirs ]]; then
    echo "FAIL $algo N=$n: no result (collsim '$ours', simgrid '$theirs')"
    [[ -n $theirs ]] || tail -3 "$tmp/peer.err" | sed 's/^/  peer: /'
    status=1; return
  fi
  if awk -v c="$ours" -v s="$theirs" 'BEGIN {d = (c * 1e-6 - s) / s; if (d < 0) d = -d; exit !(d <= 1e-6)}'; then
    echo "ok   $algo $* N=$n collsim ${ours}us simgrid ${theirs}s"
  else
    echo "FAIL $algo N=$n collsim ${ours}us simgrid ${theirs}s"; status=1
  fi
}
# Ring twice: the default (the step-per-phase fast path, exact here) and --exact (every
# transfer replayed).
for n in 2 3 7 64 256 1024; do check ring ring $n; check ring ring $n --exact; done
for n in 2 3 64 1024; do check ps ps $n; done
if "$collsim" collective --algo bintree --sizes 1KiB >/dev/null 2>&1; then
  for n in 2 3 5 64 1000 1024; do check bintree tree $n; done
else
  echo "FAIL bintree: collsim has no bintree algorithm"; status=1
fi
exit $status
