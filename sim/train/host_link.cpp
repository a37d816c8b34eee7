#include "sim/train/host_link.hpp"

#include <algorithm>
#include <map>

namespace collsim {

std::optional<HostLink> host_link_of(LinkGraph& graph, int rank) {
  const Topology& topo = graph.topology();
  const NodeIndex gpu = topo.ranks[static_cast<std::size_t>(rank)];
  const auto host = topo.nodes[gpu].host;
  // The GPUs of the same host, each to its nearest CPU of that host (fewest links).
  struct ToCpu {
    Route route;
    NodeIndex cpu;
  };
  const auto to_cpu = [&](NodeIndex g) -> std::optional<ToCpu> {
    std::optional<ToCpu> best;
    for (NodeIndex n = 0; n < topo.nodes.size(); ++n) {
      if (topo.nodes[n].kind != NodeKind::Cpu || topo.nodes[n].host != topo.nodes[g].host) continue;
      auto r = graph.node_route(g, n);
      if (r && (!best || r->links.size() < best->route.links.size())) best = ToCpu{std::move(*r), n};
    }
    return best;
  };
  const auto mine = to_cpu(gpu);
  if (!mine || mine->route.links.empty()) return std::nullopt;
  std::map<LinkId, int> users;
  int socket_users = 0;  // the host's GPUs whose nearest CPU is this GPU's
  for (NodeIndex n = 0; n < topo.nodes.size(); ++n) {
    if (topo.nodes[n].kind != NodeKind::Gpu || topo.nodes[n].host != host) continue;
    if (const auto r = to_cpu(n)) {
      for (LinkId l : r->route.links) ++users[l];
      if (r->cpu == mine->cpu) ++socket_users;
    }
  }
  double bw = 0;
  bool first = true;
  for (LinkId l : mine->route.links) {
    const double share = topo.links[l].bandwidth.bytes_per_s / std::max(1, users[l]);
    bw = first ? share : std::min(bw, share);
    first = false;
  }
  const double memory = topo.nodes[mine->cpu].memory_bandwidth.bytes_per_s / std::max(1, socket_users);
  return HostLink{Bandwidth::bytes_per_second(bw), Bandwidth::bytes_per_second(memory)};
}

}  // namespace collsim
