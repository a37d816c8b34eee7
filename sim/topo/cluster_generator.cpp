#include "sim/topo/cluster_generator.hpp"

#include <fmt/format.h>

namespace collsim {

Topology make_cluster(const ClusterSpec& spec) {
  Topology t;
  t.name = fmt::format("{}x{}-{}", spec.hosts, to_string(spec.server.kind), to_string(spec.fabric.kind));
  t.source = "generator:cluster";
  std::vector<std::vector<NodeIndex>> nics;
  std::vector<NodeIndex> gpus;
  std::vector<NodeIndex> hosts;
  for (int h = 0; h < spec.hosts; ++h) {
    ServerPorts p = add_server(t, spec.server, fmt::format("h{}/", h));
    if (h == 0 && spec.hosts > 1) {
      // Every server is alike: reserve for all of them and the fabric at once, rather than
      // growing (and copying) vectors of a million links by doubling.
      const auto hosts = static_cast<std::size_t>(spec.hosts);
      const FabricSize fabric = fabric_size_bound(spec.fabric, hosts, p.nics.size());
      t.nodes.reserve(t.nodes.size() * hosts + fabric.nodes);
      t.links.reserve(t.links.size() * hosts + fabric.links);
      gpus.reserve(p.gpus.size() * hosts);
    }
    nics.push_back(std::move(p.nics));
    gpus.insert(gpus.end(), p.gpus.begin(), p.gpus.end());
    hosts.push_back(p.host);
  }
  add_fabric(t, spec.fabric, nics);
  if (spec.fabric.net) {
    for (const auto& host : nics) {
      for (NodeIndex n : host) {
        t.nodes[n].net_latency = spec.fabric.net->latency;
        t.nodes[n].net_gpu_direct = spec.fabric.net->gpu_direct;
      }
    }
  }
  if (spec.server.kind == ServerKind::CpuHost || spec.ranks == RankOrder::Hosts) {
    t.ranks = hosts;
  } else {
    // Servers are generated one after another, so node order is host then local index.
    t.ranks = gpus;
  }
  return t;
}

Topology make_tcp_cluster(const TcpClusterSpec& spec) {
  ClusterSpec c;
  c.hosts = spec.hosts;
  c.server.kind = ServerKind::CpuHost;
  c.server.nics = spec.nics_per_host;
  c.fabric.kind = FabricKind::Star;
  c.fabric.link_kind = LinkKind::Ethernet;
  c.fabric.nic_bandwidth = spec.nic_bandwidth;
  c.fabric.mtu = spec.mtu;
  c.fabric.latency = spec.latency;
  c.ranks = RankOrder::Hosts;
  Topology t = make_cluster(c);
  t.name = fmt::format("{}-host-tcp", spec.hosts);
  t.source = "generator:tcp_cluster";
  return t;
}

}  // namespace collsim
