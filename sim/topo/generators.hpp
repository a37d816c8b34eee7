// Generated topologies for common systems. Bandwidths are per direction (bytes/s),
// latencies one-way per link (ps).
#pragma once

#include "sim/topo/topology.hpp"

namespace collsim {

// N hosts, each on its own duplex link (line rate `bandwidth`, latency each direction)
// to one non-blocking switch; ranks are the hosts. A message crosses two links:
// 2 x latency. The default link kind is ib, which carries its line rate; with
// link_kind ethernet (TCP) the links carry rate x (mtu - 52) / (mtu + 14) of payload.
struct StarSpec {
  int hosts = 8;
  Bandwidth bandwidth = Bandwidth::gbps(100);
  Time latency = Time::from_us(1);
  LinkKind link_kind = LinkKind::Ib;
  int mtu = 1500;  // bytes; ethernet only
};
[[nodiscard]] Topology make_star(const StarSpec& spec);

// One server: `gpus` GPUs, each on one duplex link to a single non-blocking NVSwitch
// crossbar. The built-in default is 8 x H100 at 450 GB/s per direction per GPU
// (18 NVLink4 links x 25 GB/s, NVIDIA H100 datasheet "900 GB/s" bidirectional).
struct NvSwitchNodeSpec {
  int gpus = 8;
  std::string gpu_model = "H100";
  Bandwidth bandwidth = Bandwidth::gb_per_s(450);
  Time latency = Time::from_ns(250);
};
[[nodiscard]] Topology make_nvswitch_node(const NvSwitchNodeSpec& spec);

// The topology used when no --topology is given.
[[nodiscard]] Topology default_topology();

}  // namespace collsim
