#include "sim/coll/collnet_layout.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "sim/core/name_table.hpp"

namespace collsim {

namespace {

// The links from host 0's GPU `gpu` to its NIC `nic` (fewer: nearer); max() without a path.
std::size_t distance(LinkGraph& graph, NodeIndex gpu, NodeIndex nic) {
  const auto r = graph.node_route(gpu, nic);
  return r ? r->links.size() : std::numeric_limits<std::size_t>::max();
}

// NIC n's nearest local GPU among those `taken` does not hold (-1 if none reaches it).
int nearest_gpu(LinkGraph& graph, const NcclHost& h, int n, const std::vector<bool>& taken) {
  int best = -1;
  std::size_t best_d = std::numeric_limits<std::size_t>::max();
  for (std::size_t j = 0; j < h.gpus.size(); ++j) {
    if (!taken.empty() && taken[j]) continue;
    const std::size_t d = distance(graph, h.gpus[j], h.nics[static_cast<std::size_t>(n)]);
    if (d < best_d) {
      best_d = d;
      best = static_cast<int>(j);
    }
  }
  return best;
}

// Why the part of `r` between the NICs cannot carry SHARP, or nullopt if it can: every
// link there InfiniBand, through at least one network switch.
std::optional<std::string> not_sharp(const Topology& topo, const Route& r) {
  bool in_fabric = false, switched = false;
  for (LinkId l : r.links) {
    const DirectedLink& link = topo.links[l];
    const NodeKind from = topo.nodes[link.from].kind;
    if (from == NodeKind::Nic) in_fabric = !in_fabric;
    if (!in_fabric) continue;
    if (link.kind != LinkKind::Ib) {
      return fmt::format("SHARP runs on InfiniBand switches, and {} -> {} is {}", topo.nodes[link.from].id,
                         topo.nodes[link.to].id, to_string(link.kind));
    }
    if (topo.nodes[link.to].kind == NodeKind::Switch) switched = true;
  }
  if (!switched) return "its NICs meet without a network switch between them (SHARP aggregates in switches)";
  return std::nullopt;
}

}  // namespace

std::optional<CollNetPlan> collnet_plan(LinkGraph& graph, const NcclGraph& g, bool chain, int channels,
                                        std::string* why_not) {
  auto fail = [&](std::string why) -> std::optional<CollNetPlan> {
    if (why_not) *why_not = std::move(why);
    return std::nullopt;
  };
  const int hosts = static_cast<int>(g.host.size());
  if (hosts < 2) return fail("CollNet runs across hosts");
  const NcclHost& first = g.host.front();
  const int ppn = static_cast<int>(first.gpus.size());
  if (first.nics.empty()) return fail("the hosts have no NIC");
  const Topology& topo = graph.topology();
  // Each stream's (head, NIC).
  std::vector<std::pair<int, int>> heads;
  if (!chain) {
    std::vector<bool> taken(static_cast<std::size_t>(ppn), false);
    const int want = collnet_heads(first.nics.size(), ppn);
    for (int n = 0; n < static_cast<int>(first.nics.size()) && static_cast<int>(heads.size()) < want; ++n) {
      const int j = nearest_gpu(graph, first, n, taken);
      if (j < 0) continue;
      taken[static_cast<std::size_t>(j)] = true;
      heads.emplace_back(j, n);
    }
  } else {
    for (int c = 0; c < std::max(1, channels); ++c) {
      const NcclChannel* ch = g.per_channel.empty() ? nullptr : &g.per_channel[static_cast<std::size_t>(c) % g.per_channel.size()];
      const int n = ch != nullptr && ch->nic >= 0 ? ch->nic : c % static_cast<int>(first.nics.size());
      const int j = nearest_gpu(graph, first, n, {});
      if (j < 0) continue;
      heads.emplace_back(j, n);
    }
  }
  if (heads.empty()) return fail("no GPU reaches a NIC");
  auto layout = std::make_shared<CollNetLayout>();
  CollNetPlan plan;
  std::map<std::pair<int, int>, std::size_t> pinned;  // (src, dst) -> index into plan.pins
  // The route between the stream's heads of hosts a and b (a pair of heads keeps the first
  // route given to it: the routes' spans are of the route that plays).
  auto route_of = [&](int local, int nic, int a, int b, std::string& why) -> const Route* {
    const int src = g.host[static_cast<std::size_t>(a)].ranks[static_cast<std::size_t>(local)];
    const int dst = g.host[static_cast<std::size_t>(b)].ranks[static_cast<std::size_t>(local)];
    if (const auto it = pinned.find({src, dst}); it != pinned.end()) return &plan.pins[it->second].route;
    auto r = gpu_nic_hop_route(graph, g, local, nic, a, b);
    if (!r) {
      why = fmt::format("no path from {} to {} through NIC {}", topo.nodes[g.host[static_cast<std::size_t>(a)].gpus[static_cast<std::size_t>(local)]].id,
                        topo.nodes[g.host[static_cast<std::size_t>(b)].gpus[static_cast<std::size_t>(local)]].id, nic);
      return nullptr;
    }
    if (const auto bad = not_sharp(topo, *r)) {
      why = *bad;
      return nullptr;
    }
    if (r->links.size() > std::numeric_limits<std::uint8_t>::max()) {
      why = fmt::format("a route of {} links (at most 255)", r->links.size());
      return nullptr;
    }
    pinned[{src, dst}] = plan.pins.size();
    plan.pins.push_back(CollNetPin{src, dst, std::move(*r)});
    return &plan.pins.back().route;
  };
  for (std::size_t q = 0; q < heads.size(); ++q) {
    const auto [local, nic] = heads[q];
    CollNetStream s;
    s.head = local;
    s.root = static_cast<int>(q) % hosts;
    if (chain) {
      // The rest of ring channel q's order from the head on (the GPUs in NVLink order).
      std::vector<int> order;
      if (!g.per_channel.empty()) order = g.per_channel[q % g.per_channel.size()].order;
      if (static_cast<int>(order.size()) != ppn) {
        order.clear();
        for (int i = 0; i < ppn; ++i) order.push_back(i);
      }
      const auto at = std::find(order.begin(), order.end(), local);
      std::rotate(order.begin(), at, order.end());
      s.chain = std::move(order);
    }
    const auto n = static_cast<std::size_t>(hosts);
    s.up.assign(n, RouteSpan{0, 0});
    s.down.assign(n, RouteSpan{0, 0});
    s.merges_into.assign(n, -1);
    // Up: each host's route to the root, up to the first node a stream already passes.
    std::map<NodeIndex, int> claimed;  // node -> the host whose stream passes it first
    std::set<LinkId> down_links;
    for (int k = 0; k < hosts; ++k) {
      if (k == s.root) continue;
      std::string why;
      const Route* up = route_of(local, nic, k, s.root, why);
      if (up == nullptr) return fail(why);
      std::size_t end = up->links.size();
      for (std::size_t i = 0; i < up->links.size(); ++i) {
        const auto it = claimed.find(topo.links[up->links[i]].to);
        if (it != claimed.end()) {
          end = i + 1;
          s.merges_into[static_cast<std::size_t>(k)] = it->second;
          break;
        }
      }
      for (std::size_t i = 0; i < end; ++i) claimed.emplace(topo.links[up->links[i]].to, k);
      s.up[static_cast<std::size_t>(k)] = RouteSpan{0, static_cast<std::uint8_t>(end)};
      // Down: the root's route to the host, from the first link no stream down loads yet.
      const Route* down = route_of(local, nic, s.root, k, why);
      if (down == nullptr) return fail(why);
      std::size_t begin = 0;
      while (begin + 1 < down->links.size() && down_links.count(down->links[begin]) != 0) ++begin;
      for (std::size_t i = begin; i < down->links.size(); ++i) down_links.insert(down->links[i]);
      s.down[static_cast<std::size_t>(k)] = RouteSpan{static_cast<std::uint8_t>(begin), static_cast<std::uint8_t>(down->links.size())};
    }
    layout->streams.push_back(std::move(s));
  }
  plan.layout = std::move(layout);
  return plan;
}

}  // namespace collsim
