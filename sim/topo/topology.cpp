#include "sim/topo/topology.hpp"

#include <array>
#include <utility>

#include "sim/topo/link_overhead.hpp"

namespace collsim {

namespace {
constexpr std::array<std::pair<NodeKind, std::string_view>, 7> kNodeKinds{{
    {NodeKind::Gpu, "gpu"},
    {NodeKind::NvSwitch, "nvswitch"},
    {NodeKind::PcieSwitch, "pcie_switch"},
    {NodeKind::Cpu, "cpu"},
    {NodeKind::Nic, "nic"},
    {NodeKind::Switch, "switch"},
    {NodeKind::Host, "host"},
}};
constexpr std::array<std::pair<LinkKind, std::string_view>, 6> kLinkKinds{{
    {LinkKind::NvLink, "nvlink"},
    {LinkKind::NvSwitch, "nvswitch"},
    {LinkKind::Pcie, "pcie"},
    {LinkKind::Ib, "ib"},
    {LinkKind::Roce, "roce"},
    {LinkKind::Ethernet, "ethernet"},
}};
}  // namespace

std::string_view to_string(NodeKind k) {
  for (const auto& [kind, name] : kNodeKinds) {
    if (kind == k) return name;
  }
  return "?";
}

std::string_view to_string(LinkKind k) {
  for (const auto& [kind, name] : kLinkKinds) {
    if (kind == k) return name;
  }
  return "?";
}

std::optional<NodeKind> node_kind_from(std::string_view s) {
  for (const auto& [kind, name] : kNodeKinds) {
    if (name == s) return kind;
  }
  return std::nullopt;
}

std::optional<LinkKind> link_kind_from(std::string_view s) {
  for (const auto& [kind, name] : kLinkKinds) {
    if (name == s) return kind;
  }
  return std::nullopt;
}

std::vector<std::string> node_kind_names() {
  std::vector<std::string> out;
  for (const auto& [kind, name] : kNodeKinds) out.emplace_back(name);
  return out;
}

std::vector<std::string> link_kind_names() {
  std::vector<std::string> out;
  for (const auto& [kind, name] : kLinkKinds) out.emplace_back(name);
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

}  // namespace collsim
