// Composes generators: N servers of one kind on one fabric ("4 x DGX H100 on a
// rail-optimised 400 Gb/s IB fabric"), and plain TCP clusters of CPU-only hosts with k
// NICs of X Gb/s each. Units as in server_generators.hpp and fabric_generators.hpp.
#pragma once

#include "sim/topo/fabric_generators.hpp"
#include "sim/topo/rank_order.hpp"
#include "sim/topo/server_generators.hpp"

namespace collsim {

struct ClusterSpec {
  int hosts = 4;
  ServerSpec server;
  FabricSpec fabric;
  RankOrder ranks = RankOrder::GpusByHost;  // CPU-host clusters always rank their hosts
};

// Hosts are named "h<i>/..." in host order; the fabric's switches have no prefix.
[[nodiscard]] Topology make_cluster(const ClusterSpec& spec);

struct TcpClusterSpec {
  int hosts = 16;
  int nics_per_host = 1;
  Bandwidth nic_bandwidth = Bandwidth::gbps(25);  // line rate per NIC
  int mtu = 1500;
  Time latency = Time::from_us(1);  // per link (round figure, not a datasheet number)
};

// `hosts` CPU-only hosts (the ranks), each with `nics_per_host` Ethernet NICs on one
// switch; TCP/IP header overhead is charged for the MTU.
[[nodiscard]] Topology make_tcp_cluster(const TcpClusterSpec& spec);

}  // namespace collsim
