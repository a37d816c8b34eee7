#include "sim/train/host_link.hpp"

#include <algorithm>
#include <map>

namespace collsim {

std::optional<HostLink> host_link_of(LinkGraph& graph, int rank) {
  const Topology& topo = graph.topology();
  const NodeIndex gpu = topo.ranks[static_cast<std::size_t>(rank)];
  const auto host = topo.nodes[gpu].host;
  // The GPUs of the same host, each to its nearest CPU of that host (fewest links).
  const auto to_cpu = [&](NodeIndex g) -> std::optional<Route> {
    std::optional<Route> best;
    for (NodeIndex n = 0; n < topo.nodes.size(); ++n) {
      if (topo.nodes[n].kind != NodeKind::Cpu || topo.nodes[n].host != topo.nodes[g].host) continue;
      auto r = graph.node_route(g, n);
      if (r && (!best || r->links.size() < best->links.size())) best = std::move(r);
    }
    return best;
  };
  const auto mine = to_cpu(gpu);
  if (!mine || mine->links.empty()) return std::nullopt;
  std::map<LinkId, int> users;
  for (NodeIndex n = 0; n < topo.nodes.size(); ++n) {
    if (topo.nodes[n].kind != NodeKind::Gpu || topo.nodes[n].host != host) continue;
    if (const auto r = to_cpu(n)) {
      for (LinkId l : r->links) ++users[l];
    }
  }
  double bw = 0;
  bool first = true;
  for (LinkId l : mine->links) {
    const double share = topo.links[l].bandwidth.bytes_per_s / std::max(1, users[l]);
    bw = first ? share : std::min(bw, share);
    first = false;
  }
  return HostLink{Bandwidth::bytes_per_second(bw)};
}

}  // namespace collsim
