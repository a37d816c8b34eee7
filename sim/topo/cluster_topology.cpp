#include "sim/topo/cluster_topology.hpp"

#include <fmt/format.h>

namespace collsim {

Topology make_sweep_cluster(const SweepClusterSpec& s) {
  Topology t;
  t.name = fmt::format("cluster-{}x{}-{}", s.hosts, s.gpus_per_host, s.gpu_model);
  t.source = "built-in:cluster";
  const NodeIndex sw = t.add_node("switch", NodeKind::Switch);
  for (int h = 0; h < s.hosts; ++h) {
    const NodeIndex host = t.add_node(fmt::format("host{}", h), NodeKind::Host);
    const NodeIndex nvs = t.add_node(fmt::format("nvswitch{}", h), NodeKind::NvSwitch);
    t.nodes[nvs].host = host;
    for (int g = 0; g < s.gpus_per_host; ++g) {
      const NodeIndex gpu = t.add_node(fmt::format("gpu{}.{}", h, g), NodeKind::Gpu, s.gpu_model);
      const NodeIndex nic = t.add_node(fmt::format("nic{}.{}", h, g), NodeKind::Nic);
      t.nodes[gpu].host = host;
      t.nodes[nic].host = host;
      t.add_duplex(gpu, nvs, LinkKind::NvSwitch, s.nvswitch_bandwidth, s.nvswitch_latency);
      t.add_duplex(gpu, nic, LinkKind::Pcie, s.pcie_bandwidth, s.pcie_latency);
      t.add_duplex(nic, sw, LinkKind::Ib, s.nic_bandwidth, s.nic_latency);
      t.ranks.push_back(gpu);
    }
  }
  return t;
}

}  // namespace collsim
