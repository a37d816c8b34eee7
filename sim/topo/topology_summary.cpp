#include "sim/topo/topology_summary.hpp"

#include <algorithm>

#include "sim/topo/bisection.hpp"
#include "sim/topo/link_id.hpp"

namespace collsim {

namespace {
// Which injection figure a link kind adds to: NVLink and NVSwitch, PCIe, or network.
enum class Injects : std::uint8_t { NvLink, Pcie, Net };

Injects injects(LinkKind k) {
  switch (k) {
    case LinkKind::NvLink:
    case LinkKind::NvSwitch: return Injects::NvLink;
    case LinkKind::Pcie: return Injects::Pcie;
    case LinkKind::Ib:
    case LinkKind::Roce:
    case LinkKind::Ethernet: return Injects::Net;
  }
  return Injects::Net;
}

Bandwidth net_out_of(const Topology& t, NodeIndex nic, const std::vector<std::vector<LinkId>>& out) {
  Bandwidth b{0};
  for (LinkId l : out[nic]) {
    if (injects(t.links[l].kind) == Injects::Net) b.bytes_per_s += t.links[l].bandwidth.bytes_per_s;
  }
  return b;
}

std::vector<std::vector<LinkId>> out_links(const Topology& t) {
  std::vector<std::vector<LinkId>> out(t.nodes.size());
  for (LinkId l = 0; l < t.links.size(); ++l) out[t.links[l].from].push_back(l);
  return out;
}

Injection injection(const Topology& t, NodeIndex n, const std::vector<std::vector<LinkId>>& out,
                    const std::vector<int>& nic_users) {
  Injection inj;
  for (LinkId l : out[n]) {
    const auto& link = t.links[l];
    switch (injects(link.kind)) {
      case Injects::NvLink: inj.nvlink.bytes_per_s += link.bandwidth.bytes_per_s; break;
      case Injects::Pcie: inj.pcie.bytes_per_s += link.bandwidth.bytes_per_s; break;
      case Injects::Net: inj.net.bytes_per_s += link.bandwidth.bytes_per_s; break;
    }
  }
  const Node& node = t.nodes[n];
  if (node.nic) {
    inj.net.bytes_per_s += net_out_of(t, *node.nic, out).bytes_per_s / std::max(1, nic_users[*node.nic]);
  } else if (node.kind == NodeKind::Host) {
    for (NodeIndex m = 0; m < t.nodes.size(); ++m) {
      if (t.nodes[m].kind == NodeKind::Nic && t.nodes[m].host == n) inj.net.bytes_per_s += net_out_of(t, m, out).bytes_per_s;
    }
  }
  return inj;
}

std::vector<int> count_nic_users(const Topology& t) {
  std::vector<int> users(t.nodes.size(), 0);
  for (const Node& n : t.nodes) {
    if (n.nic) ++users[*n.nic];
  }
  return users;
}
}  // namespace

Injection injection_of(const Topology& t, NodeIndex rank_node) {
  return injection(t, rank_node, out_links(t), count_nic_users(t));
}

TopologySummary summarize(const Topology& t) {
  TopologySummary s;
  s.name = t.name;
  s.ranks = t.rank_count();
  std::map<NodeIndex, int> nics_per_host;
  for (NodeIndex n = 0; n < t.nodes.size(); ++n) {
    const Node& node = t.nodes[n];
    ++s.node_counts[std::string(to_string(node.kind))];
    if (node.kind == NodeKind::Gpu) ++s.gpus_by_model[node.model];
    if (node.kind == NodeKind::Host) nics_per_host.try_emplace(n, 0);
    if (node.kind == NodeKind::Nic && node.host) ++nics_per_host[*node.host];
  }
  s.max_net_latency = t.max_net_latency();
  if (!nics_per_host.empty()) {
    s.min_nics_per_host = s.max_nics_per_host = nics_per_host.begin()->second;
    for (const auto& [h, c] : nics_per_host) {
      s.min_nics_per_host = std::min(s.min_nics_per_host, c);
      s.max_nics_per_host = std::max(s.max_nics_per_host, c);
    }
  }
  for (const auto& l : t.links) {
    auto it = std::find_if(s.links.begin(), s.links.end(), [&](const LinkKindStats& k) { return k.kind == l.kind; });
    if (it == s.links.end()) {
      s.links.push_back(LinkKindStats{l.kind, 0, 0, l.bandwidth, l.bandwidth});
      it = s.links.end() - 1;
    }
    ++it->links;
    it->lanes += l.lanes;
    it->min_rate = std::min(it->min_rate, l.bandwidth);
    it->max_rate = std::max(it->max_rate, l.bandwidth);
  }
  std::sort(s.links.begin(), s.links.end(), [](const auto& a, const auto& b) { return a.kind < b.kind; });
  if (!t.ranks.empty()) {
    const auto out = out_links(t);
    const auto users = count_nic_users(t);
    s.first_rank_injection = injection(t, t.ranks.front(), out, users);
    for (NodeIndex r : t.ranks) {
      if (injection(t, r, out, users) != s.first_rank_injection) s.uniform_injection = false;
    }
  }
  s.bisection = bisection_bandwidth(t);
  return s;
}

}  // namespace collsim
