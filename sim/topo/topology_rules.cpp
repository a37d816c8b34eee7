#include "sim/topo/topology_rules.hpp"

#include <fmt/format.h>

#include "sim/topo/link_graph.hpp"

namespace collsim {

namespace {

std::string node_pointer(NodeIndex n) { return fmt::format("/nodes/{}", n); }

// Unreachable pairs are listed up to this many; then one error counts the rest, so a
// cut-off fabric of 16384 GPUs does not print 16384 lines.
constexpr std::size_t kMaxUnreachableListed = 20;

struct Unreachable {
  std::size_t count = 0;
};

void unreachable(const Topology& t, NodeIndex from, NodeIndex to, Diagnostics& d, Unreachable& u) {
  if (++u.count > kMaxUnreachableListed) return;
  const Node& a = t.nodes[from];
  const Node& b = t.nodes[to];
  d.emplace_back(t.source, node_pointer(from),
                 fmt::format("{} \"{}\" with no path to {} \"{}\"", to_string(a.kind), a.id, to_string(b.kind), b.id),
                 "a path of links (through switches, NICs or CPUs, not through other GPUs or hosts) between "
                 "every pair of ranks");
}

// Up to 2048 ranks: one search per rank, exact for any link set. Larger (generated)
// fabrics rely on check_routes below (rank 0 to every rank and back).
void check_reachable(const Topology& t, Diagnostics& d, Unreachable& u) {
  if (t.ranks.size() > 2048) return;
  LinkGraph g(t);
  for (NodeIndex r : t.ranks) {
    const auto seen = g.reachable_from(r);
    for (NodeIndex q : t.ranks) {
      if (!seen[q]) unreachable(t, r, q, d, u);
    }
  }
}

// Rail-aware routes (GPU -> own NIC -> fabric -> peer's NIC -> peer) are stricter than
// plain reachability: check rank 0 to every rank and back.
void check_routes(const Topology& t, Diagnostics& d, Unreachable& u) {
  LinkGraph g(t);
  const NodeIndex first = t.ranks.front();
  for (NodeIndex r : t.ranks) {
    if (!g.node_route(first, r)) unreachable(t, first, r, d, u);
    else if (!g.node_route(r, first)) unreachable(t, r, first, d, u);
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
  Unreachable u;
  check_reachable(t, d, u);
  if (u.count == 0) check_routes(t, d, u);
  if (u.count > kMaxUnreachableListed) {
    d.emplace_back(t.source, "/ranks", fmt::format("{} more pairs of ranks without a path", u.count - kMaxUnreachableListed),
                   "a path of links between every pair of ranks");
  }
}

}  // namespace collsim
