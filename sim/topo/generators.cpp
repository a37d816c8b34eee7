#include "sim/topo/generators.hpp"

#include <fmt/format.h>

namespace collsim {

Topology make_star(const StarSpec& spec) {
  Topology t;
  t.name = fmt::format("star-{}", spec.hosts);
  t.source = "generator:star";
  t.nodes.reserve(static_cast<std::size_t>(spec.hosts) + 1);
  t.links.reserve(static_cast<std::size_t>(spec.hosts) * 2);
  const NodeIndex sw = t.add_node("switch", NodeKind::Switch);
  for (int h = 0; h < spec.hosts; ++h) {
    const NodeIndex host = t.add_node(fmt::format("host{}", h), NodeKind::Host);
    t.add_duplex(host, sw, spec.link_kind, spec.bandwidth, 1, spec.latency,
                 spec.link_kind == LinkKind::Ethernet ? spec.mtu : 0);
    t.ranks.push_back(host);
  }
  return t;
}

Topology make_nvswitch_node(const NvSwitchNodeSpec& spec) {
  Topology t;
  t.name = fmt::format("{}x{}-nvswitch", spec.gpus, spec.gpu_model);
  t.source = "generator:nvswitch_node";
  const NodeIndex host = t.add_node("node0", NodeKind::Host);
  const NodeIndex sw = t.add_node("nvswitch", NodeKind::NvSwitch);
  t.nodes[sw].host = host;
  for (int g = 0; g < spec.gpus; ++g) {
    const NodeIndex gpu = t.add_node(fmt::format("gpu{}", g), NodeKind::Gpu, spec.gpu_model);
    t.nodes[gpu].host = host;
    t.add_duplex(gpu, sw, LinkKind::NvSwitch, spec.bandwidth, 1, spec.latency, 0);
    t.ranks.push_back(gpu);
  }
  return t;
}

Topology default_topology() {
  Topology t = make_nvswitch_node(NvSwitchNodeSpec{});
  t.source = "built-in:8xH100-nvswitch";
  return t;
}

}  // namespace collsim
