// A small GPU cluster for engine tests: H hosts x G GPUs, each GPU on its host's NVSwitch
// (450 GB/s) and on its own NIC (rail i = local GPU i, 400 Gb/s = 50 GB/s) to one network
// switch.
#pragma once

#include <fmt/format.h>

#include "sim/topo/topology.hpp"

namespace collsim::test {

inline Topology rail_hosts(int hosts, int gpus) {
  Topology t;
  t.name = fmt::format("{}x{}-rails", hosts, gpus);
  t.source = "test";
  const NodeIndex net = t.add_node("net", NodeKind::Switch);
  for (int h = 0; h < hosts; ++h) {
    const NodeIndex host = t.add_node(fmt::format("host{}", h), NodeKind::Host);
    const NodeIndex nvs = t.add_node(fmt::format("nvs{}", h), NodeKind::NvSwitch);
    for (int g = 0; g < gpus; ++g) {
      const NodeIndex gpu = t.add_node(fmt::format("h{}g{}", h, g), NodeKind::Gpu, "H100");
      const NodeIndex nic = t.add_node(fmt::format("h{}nic{}", h, g), NodeKind::Nic);
      t.nodes[gpu].host = host;
      t.add_duplex(gpu, nvs, LinkKind::NvSwitch, Bandwidth::gb_per_s(450), Time::from_ns(250));
      t.add_duplex(gpu, nic, LinkKind::Pcie, Bandwidth::gb_per_s(64), Time::from_ns(500));
      t.add_duplex(nic, net, LinkKind::Ib, Bandwidth::gbps(400), Time::from_us(1));
      t.ranks.push_back(gpu);
    }
  }
  return t;
}

}  // namespace collsim::test
