#include "sim/topo/topology_rules.hpp"

#include <fmt/format.h>

#include "sim/topo/link_graph.hpp"

namespace collsim {

namespace {

std::string node_pointer(NodeIndex n) { return fmt::format("/nodes/{}", n); }

void unreachable(const Topology& t, NodeIndex from, NodeIndex to, Diagnostics& d) {
  const Node& a = t.nodes[from];
  const Node& b = t.nodes[to];
  d.emplace_back(t.source, node_pointer(from),
                 fmt::format("{} \"{}\" with no path to {} \"{}\"", to_string(a.kind), a.id, to_string(b.kind), b.id),
                 "a path of links (through switches, NICs or CPUs, not through other GPUs or hosts) between "
                 "every pair of ranks");
}

// Up to 2048 ranks: one search per rank, exact for any link set. Larger (generated)
// fabrics: union-find over links between transit nodes; two ranks connect when one has
// a link into, and the other a link out of, the same transit component. That is exact
// when transit links come in both directions, which every generator produces.
void check_reachable(const Topology& t, Diagnostics& d) {
  if (t.ranks.size() <= 2048) {
    LinkGraph g(t);
    for (NodeIndex r : t.ranks) {
      const auto seen = g.reachable_from(r);
      for (NodeIndex q : t.ranks) {
        if (!seen[q]) unreachable(t, r, q, d);
      }
    }
    return;
  }
  std::vector<NodeIndex> parent(t.nodes.size());
  for (NodeIndex i = 0; i < parent.size(); ++i) parent[i] = i;
  auto root = [&](NodeIndex v) {
    while (parent[v] != v) v = parent[v] = parent[parent[v]];
    return v;
  };
  for (const auto& l : t.links) {
    if (LinkGraph::can_transit(t.nodes[l.from].kind) && LinkGraph::can_transit(t.nodes[l.to].kind)) {
      parent[root(l.from)] = root(l.to);
    }
  }
  constexpr NodeIndex kNone = ~NodeIndex{0};
  std::vector<NodeIndex> out_comp(t.nodes.size(), kNone), in_comp(t.nodes.size(), kNone);
  for (const auto& l : t.links) {
    if (LinkGraph::can_transit(t.nodes[l.to].kind)) out_comp[l.from] = root(l.to);
    if (LinkGraph::can_transit(t.nodes[l.from].kind)) in_comp[l.to] = root(l.from);
  }
  const NodeIndex first = t.ranks.front();
  for (NodeIndex r : t.ranks) {
    if (out_comp[r] == kNone || out_comp[r] != out_comp[first] || in_comp[r] == kNone || in_comp[r] != out_comp[first]) {
      unreachable(t, first, r, d);
    }
  }
}

// Rail-aware routes (GPU -> own NIC -> fabric -> peer's NIC -> peer) are stricter than
// plain reachability: check rank 0 to every rank and back.
void check_routes(const Topology& t, Diagnostics& d) {
  LinkGraph g(t);
  const NodeIndex first = t.ranks.front();
  for (NodeIndex r : t.ranks) {
    if (!g.node_route(first, r)) unreachable(t, first, r, d);
    else if (!g.node_route(r, first)) unreachable(t, r, first, d);
  }
}

}  // namespace

std::optional<std::string> link_endpoint_rule(LinkKind k, NodeKind a, NodeKind b) {
  auto both = [&](auto pred) { return pred(a) && pred(b); };
  switch (k) {
    case LinkKind::NvLink:
    case LinkKind::NvSwitch:
      if (both([](NodeKind n) { return n == NodeKind::Gpu || n == NodeKind::NvSwitch; })) return std::nullopt;
      return "an NVLink or NVSwitch link between GPUs and NVSwitches only";
    case LinkKind::Pcie:
      if (both([](NodeKind n) { return n != NodeKind::NvSwitch && n != NodeKind::Switch; })) return std::nullopt;
      return "a PCIe link between GPUs, PCIe switches, CPUs, NICs and hosts only (not an NVSwitch or network switch)";
    case LinkKind::Ib:
    case LinkKind::Roce:
    case LinkKind::Ethernet:
      if (both([](NodeKind n) { return n == NodeKind::Nic || n == NodeKind::Switch || n == NodeKind::Host; })) {
        return std::nullopt;
      }
      return "a network link (ib, roce, ethernet) between NICs, network switches and hosts only";
  }
  return std::nullopt;
}

void check_topology_rules(const Topology& t, Diagnostics& d) {
  for (NodeIndex n = 0; n < t.nodes.size(); ++n) {
    const Node& node = t.nodes[n];
    if (node.nic && t.nodes[*node.nic].host != node.host) {
      d.emplace_back(t.source, node_pointer(n) + "/nic", fmt::format("\"{}\"", t.nodes[*node.nic].id),
                     "a NIC in the same host as the GPU (give both the same \"host\")");
    }
  }
  if (!d.empty() || t.ranks.empty()) return;
  const std::size_t before = d.size();
  check_reachable(t, d);
  if (d.size() == before) check_routes(t, d);
}

}  // namespace collsim
