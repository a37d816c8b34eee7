#include "sim/topo/topology.hpp"

#include <algorithm>
#include <utility>

#include "sim/core/name_table.hpp"
#include "sim/topo/link_overhead.hpp"

namespace collsim {

Time Topology::max_net_latency() const {
  Time out{};
  for (const Node& n : nodes) {
    if (n.kind == NodeKind::Nic) out = std::max(out, n.net_latency);
  }
  return out;
}

std::optional<NodeIndex> Topology::find(std::string_view id) const {
  for (NodeIndex i = 0; i < nodes.size(); ++i) {
    if (nodes[i].id == id) return i;
  }
  return std::nullopt;
}

void Topology::add_duplex(NodeIndex a, NodeIndex b, LinkKind kind, Bandwidth bw, Time latency) {
  links.push_back(DirectedLink{a, b, kind, bw, latency, bw, 1, 0});
  links.push_back(DirectedLink{b, a, kind, bw, latency, bw, 1, 0});
}

void Topology::add_duplex(NodeIndex a, NodeIndex b, LinkKind kind, Bandwidth lane_rate, int lanes, Time latency,
                          int mtu) {
  const Bandwidth line = lane_rate * lanes;
  const Bandwidth payload = payload_rate(kind, line, mtu);
  links.push_back(DirectedLink{a, b, kind, payload, latency, line, lanes, mtu});
  links.push_back(DirectedLink{b, a, kind, payload, latency, line, lanes, mtu});
}

NodeIndex Topology::add_node(std::string id, NodeKind kind, std::string model) {
  nodes.push_back(Node{std::move(id), kind, std::move(model), std::nullopt, std::nullopt});
  return static_cast<NodeIndex>(nodes.size() - 1);
}

std::map<NodeIndex, std::optional<HostCpu>> host_platforms(const Topology& topo) {
  std::map<NodeIndex, std::optional<HostCpu>> first;
  for (const Node& n : topo.nodes) {
    if (n.kind == NodeKind::Cpu && n.host) first.try_emplace(*n.host, n.platform);  // the first CPU, named or not
  }
  return first;
}

std::optional<HostCpu> host_platform(const Topology& topo, NodeIndex v) {
  const auto host = topo.nodes[v].host;
  if (!host) return std::nullopt;
  const auto first = host_platforms(topo);
  const auto it = first.find(*host);
  return it == first.end() ? std::nullopt : it->second;
}

}  // namespace collsim
