#!/usr/bin/env bash
# A real TCP cluster on one Linux machine: N hosts as network namespaces joined by one
# bridge (itself in its own namespace), each host's veth link shaped with tc tbf at RATE in
# both directions (a full-duplex NIC), private addresses only inside those namespaces.
#
#   testbed.sh up N RATE [MTU] [--topology FILE] [--congestion NAME]
#                                                  create the hosts, write the topology file
#   testbed.sh down                                remove everything `up` made
#   testbed.sh status                              list what exists
#   testbed.sh addr I                              host I's address
#   testbed.sh exec I CMD...                       run CMD inside host I's namespace
#
# RATE is a tc rate: 200mbit, 1gbit, 500Mbit (kbit/mbit/gbit, bits per second). MTU
# defaults to 9000 (at 1500, two cores cannot push 8 hosts' worth of ring traffic:
# reference/testbed.md). --congestion: the TCP congestion control of every connection between
# the hosts (set on each host's route, `ip route ... congctl`, since the namespaces' sysctl
# cannot be changed); default cubic, Linux's default; `default` keeps the namespace's own
# (bbr on these machines). Exit codes: 0 ok, 2 refused (not root, tools missing, bad args),
# 1 a command failed (everything made so far is removed by the trap).
set -euo pipefail

PREFIX=${COLLSIM_TESTBED_PREFIX:-cst}     # namespace/interface name prefix
SUBNET=${COLLSIM_TESTBED_SUBNET:-10.77.0} # private /24, only inside our namespaces
STATE_DIR=${COLLSIM_TESTBED_STATE:-/run/collsim-testbed}
SWITCH_NS="${PREFIX}-sw"

die() { echo "testbed.sh: $*" >&2; exit 2; }

usage() {
  sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
}

check_environment() {
  [[ $(id -u) == 0 ]] || die "refused: needs root (network namespaces, veth and tc); you are uid $(id -u)"
  local tool
  for tool in ip tc; do
    command -v "$tool" >/dev/null 2>&1 || die "refused: '$tool' not found (install iproute2)"
  done
  ip netns list >/dev/null 2>&1 || die "refused: 'ip netns' does not work here (no network namespace support)"
}

# rate_bits RATE -> bits per second (integer), or fails.
rate_bits() {
  local r=${1,,}
  if [[ $r =~ ^([0-9]+(\.[0-9]+)?)(kbit|mbit|gbit|bit)$ ]]; then
    local num=${BASH_REMATCH[1]} unit=${BASH_REMATCH[3]} mult=1
    case $unit in kbit) mult=1000 ;; mbit) mult=1000000 ;; gbit) mult=1000000000 ;; esac
    awk -v n="$num" -v m="$mult" 'BEGIN { printf "%.0f", n * m }'
  else
    return 1
  fi
}

host_ns() { echo "${PREFIX}-h$1"; }
host_addr() { echo "${SUBNET}.$(($1 + 1))"; }

down() {
  local ns
  # Remove every namespace this script made (recorded in the state file, plus any left
  # with our prefix by an interrupted run). Deleting a namespace removes its veth ends,
  # the bridge and the qdiscs with it.
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^${PREFIX}-(h[0-9]+|sw)$" || true); do
    ip netns del "$ns" 2>/dev/null || true
  done
  rm -rf "$STATE_DIR"
}

status() {
  ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^${PREFIX}-(h[0-9]+|sw)$" || echo "no test bed"
  [[ -f $STATE_DIR/config ]] && cat "$STATE_DIR/config"
  return 0
}

shape() { # shape NS DEV RATE_BITS MTU: tbf at the rate on DEV's egress
  local ns=$1 dev=$2 bits=$3 mtu=$4
  # burst: at least 4 full frames and 1 ms of traffic, so the kernel timer granularity
  # does not cap the rate; queue bounded at 50 ms of traffic.
  local frame=$((mtu + 14))
  local burst=$((bits / 8 / 1000))
  ((burst < 4 * frame)) && burst=$((4 * frame))
  ip netns exec "$ns" tc qdisc replace dev "$dev" root tbf rate "${bits}bit" burst "$burst" latency 50ms
}

up() {
  local n=$1 rate=$2 mtu=$3 topo_file=$4 congestion=$5
  [[ $n =~ ^[0-9]+$ ]] && ((n >= 2 && n <= 64)) || die "N must be a host count from 2 to 64, got '$n'"
  local bits
  bits=$(rate_bits "$rate") || die "RATE must be a tc rate like 200mbit or 1gbit, got '$rate'"
  ((bits >= 1000000)) || die "RATE must be at least 1mbit, got '$rate'"
  [[ $mtu =~ ^[0-9]+$ ]] && ((mtu >= 576 && mtu <= 65000)) || die "MTU must be 576..65000, got '$mtu'"
  [[ $congestion =~ ^[a-z0-9_]+$ ]] || die "--congestion must be a congestion control name like cubic, got '$congestion'"
  if [[ $congestion != default ]] &&
    ! grep -qw "$congestion" /proc/sys/net/ipv4/tcp_available_congestion_control 2>/dev/null &&
    ! modprobe "tcp_$congestion" 2>/dev/null; then
    die "refused: congestion control '$congestion' is not available (/proc/sys/net/ipv4/tcp_available_congestion_control: $(cat /proc/sys/net/ipv4/tcp_available_congestion_control 2>/dev/null))"
  fi
  if ip netns list 2>/dev/null | awk '{print $1}' | grep -qE "^${PREFIX}-(h[0-9]+|sw)$"; then
    die "refused: a test bed already exists (testbed.sh down first)"
  fi
  # The topology file is written last: a folder that is not there must be refused before
  # anything is made, not found after the hosts exist.
  if [[ -n $topo_file ]]; then
    local topo_dir
    topo_dir=$(dirname -- "$topo_file")
    [[ -d $topo_dir && -w $topo_dir ]] || die "--topology: folder '$topo_dir' of '$topo_file' does not exist or is not writable"
    [[ ! -d $topo_file ]] || die "--topology: '$topo_file' is a folder, expected a file name to write"
  fi

  # HUP (terminal closed) and QUIT too: any end of `up` but success removes what it made.
  trap 'rc=$?; echo "testbed.sh: up failed (exit $rc); removing what was made" >&2; down; exit 1' ERR INT TERM HUP QUIT
  mkdir -p "$STATE_DIR"
  ip netns add "$SWITCH_NS"
  ip -n "$SWITCH_NS" link set lo up
  ip -n "$SWITCH_NS" link add br0 type bridge
  ip -n "$SWITCH_NS" link set br0 mtu "$mtu"
  local i ns
  for ((i = 0; i < n; i++)); do
    ns=$(host_ns "$i")
    ip netns add "$ns"
    ip -n "$ns" link set lo up
    # host end eth0 in the host namespace, switch end pI on the bridge
    ip -n "$ns" link add eth0 mtu "$mtu" type veth peer name "p$i" mtu "$mtu" netns "$SWITCH_NS"
    ip -n "$ns" addr add "$(host_addr "$i")/24" dev eth0
    ip -n "$ns" link set eth0 up
    if [[ $congestion != default ]]; then  # every connection on the subnet route uses it
      ip -n "$ns" route replace "${SUBNET}.0/24" dev eth0 proto kernel scope link src "$(host_addr "$i")" congctl "$congestion"
    fi
    ip -n "$SWITCH_NS" link set "p$i" master br0
    ip -n "$SWITCH_NS" link set "p$i" up
    shape "$ns" eth0 "$bits" "$mtu"         # host -> switch (the NIC's transmit side)
    shape "$SWITCH_NS" "p$i" "$bits" "$mtu" # switch -> host (the NIC's receive side)
  done
  ip -n "$SWITCH_NS" link set br0 up
  printf 'hosts=%d\nrate=%s\nrate_bits=%d\nmtu=%d\nsubnet=%s.0/24\ncongestion=%s\n' "$n" "$rate" "$bits" "$mtu" "$SUBNET" \
    "$congestion" >"$STATE_DIR/config"

  # Reachability: a TCP connect from the last host to the first; refused counts as
  # reachable (ping is not installed).
  local last=$((n - 1))
  local probe
  probe=$(ip netns exec "$(host_ns "$last")" timeout 5 bash -c "exec 3<>/dev/tcp/$(host_addr 0)/9" 2>&1 || true)
  if [[ -n $probe && ! $probe =~ [Rr]efused ]]; then
    echo "testbed.sh: host $last cannot reach host 0" >&2
    false
  fi
  if [[ -n $topo_file ]]; then write_topology "$n" "$bits" "$mtu" "$rate" >"$topo_file"; fi
  trap - ERR INT TERM HUP QUIT

  echo "testbed up: $n hosts at $rate (MTU $mtu, TCP $congestion), addresses $(host_addr 0)..$(host_addr "$last")"
  [[ -n $topo_file ]] && echo "topology: $topo_file"
  return 0
}

# The matching collsim topology: hosts h0..hN-1 and the bridge as a switch, each host on
# an ethernet link at the tbf rate (line rate) with the test bed's MTU. The loader charges
# the TCP/IP overhead from the MTU: tbf counts whole Ethernet frames, so goodput =
# rate x (MTU - 52) / (MTU + 14) (IP 20 + TCP 32 bytes with timestamps per segment,
# Ethernet header 14; reference/testbed.md): 0.957 of the rate at MTU 1500, 0.993 at 9000.
# Latency: one veth + bridge + veth hop inside the kernel, no wire; 25us is the order of
# magnitude of that path (stated assumption, not fitted; `collsim validate --calibrate`
# fits it from measurements). At the test bed's rates it is < 1 % of any 1 MiB transfer.
write_topology() {
  local n=$1 bits=$2 mtu=$3 rate=$4
  local i sep
  printf '{\n  "name": "testbed-%dx%s-mtu%d",\n  "nodes": [\n' "$n" "$rate" "$mtu"
  for ((i = 0; i < n; i++)); do printf '    {"id": "h%d", "kind": "host"},\n' "$i"; done
  printf '    {"id": "br0", "kind": "switch"}\n  ],\n  "links": [\n'
  for ((i = 0; i < n; i++)); do
    sep=","; ((i == n - 1)) && sep=""
    printf '    {"endpoints": ["h%d", "br0"], "kind": "ethernet", "bandwidth": "%sbps", "mtu": %d, "latency": "25us", "duplex": true}%s\n' \
      "$i" "$bits" "$mtu" "$sep"
  done
  printf '  ]\n}\n'
}

cmd=${1:-}
[[ -n $cmd ]] || usage
shift
case $cmd in
  up)
    [[ $# -ge 2 ]] || usage
    n=$1 rate=$2
    shift 2
    mtu=9000 topo="" congestion=cubic
    if [[ $# -ge 1 && $1 != --* ]]; then mtu=$1; shift; fi
    while [[ $# -gt 0 ]]; do
      case $1 in
        --topology) [[ $# -ge 2 ]] || die "--topology needs a file"; topo=$2; shift 2 ;;
        --congestion) [[ $# -ge 2 ]] || die "--congestion needs a name (cubic, reno, bbr or default)"; congestion=$2; shift 2 ;;
        *) die "unknown argument '$1'" ;;
      esac
    done
    check_environment
    up "$n" "$rate" "$mtu" "$topo" "$congestion"
    ;;
  down) check_environment; down; echo "testbed down" ;;
  status) check_environment; status ;;
  addr) [[ $# -eq 1 ]] || usage; host_addr "$1" ;;
  exec)
    [[ $# -ge 2 ]] || usage
    check_environment
    i=$1; shift
    exec ip netns exec "$(host_ns "$i")" "$@"
    ;;
  topology)  # topology N RATE [MTU]: print the topology file without making anything
    [[ $# -ge 2 ]] || usage
    bits=$(rate_bits "$2") || die "RATE must be a tc rate like 200mbit, got '$2'"
    write_topology "$1" "$bits" "${3:-9000}" "$2"
    ;;
  *) usage ;;
esac
