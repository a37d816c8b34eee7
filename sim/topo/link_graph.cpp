#include "sim/topo/link_graph.hpp"


#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace collsim {

LinkGraph::LinkGraph(const Topology& topo)
    : topo_(topo),
      graph_(make_link_graph(topo)),
      paths_(topo),
      ordinal_(topo.nodes.size(), kNoOrdinal),
      kind_(topo.nodes.size()),
      host_(topo.nodes.size(), kNoHost) {
  for (NodeIndex v = 0; v < topo.nodes.size(); ++v) {
    kind_[v] = topo.nodes[v].kind;
    host_[v] = topo.nodes[v].host.value_or(kNoHost);
  }
  std::uint32_t nics = 0, hosts = 0;
  for (NodeIndex v = 0; v < topo.nodes.size(); ++v) {
    if (topo.nodes[v].kind == NodeKind::Nic) ordinal_[v] = nics++;
    if (topo.nodes[v].kind == NodeKind::Host) ordinal_[v] = hosts++;
  }
}

ShortestPaths::Choice LinkGraph::choice_towards(NodeIndex to, std::uint64_t seed) const {
  ShortestPaths::Choice c{seed, std::nullopt};
  if (ordinal_[to] != kNoOrdinal) c.destination = ordinal_[to];
  return c;
}

bool LinkGraph::can_transit(NodeKind k) {
  return k != NodeKind::Gpu && k != NodeKind::Host;
}

std::optional<Route> LinkGraph::node_route(NodeIndex a, NodeIndex b, std::uint32_t flow) {
  Route r;
  r.links.reserve(16);  // one allocation for most routes (trimmed at the end)
  if (!append_node_route(a, b, flow, r.links)) return std::nullopt;
  for (LinkId l : r.links) r.latency += topo_.links[l].latency;
  r.links.shrink_to_fit();
  return r;
}

bool LinkGraph::append_node_route(NodeIndex a, NodeIndex b, std::uint32_t flow, std::vector<LinkId>& out) {
  if (a == b) return true;
  const std::size_t start = out.size();  // a failed search is cut back to here
  const Node& na = topo_.nodes[a];
  const Node& nb = topo_.nodes[b];
  const std::uint64_t seed = stable_hash(a, b, flow);
  const ShortestPaths::Choice hashed{seed, std::nullopt};
  auto any_switch = [this](NodeIndex v) { return can_transit(kind_[v]); };
  const bool other_hosts = na.host && nb.host && *na.host != *nb.host;
  const bool same_host = na.host && nb.host && *na.host == *nb.host;
  bool ok = false;
  if (same_host) {
    // Inside one server traffic stays inside it, over NVLink (direct or through an
    // NVSwitch) where there is a path, as NCCL's P2P transport does; else over PCIe and
    // the socket link.
    const NodeIndex h = *na.host;
    ok = paths_.find(graph_, a, b, [&](NodeIndex v) { return kind_[v] == NodeKind::NvSwitch && host_[v] == h; },
                      hashed, out);
    if (!ok) {
      out.resize(start);
      ok = paths_.find(graph_, a, b, [&](NodeIndex v) { return any_switch(v) && host_[v] == h; }, hashed, out);
    }
    if (!ok) {
      out.resize(start);
      ok = paths_.find(graph_, a, b, any_switch, hashed, out);
    }
  } else if (other_hosts && (na.nic || nb.nic)) {
    // Rail-aware: leave through the source GPU's own NIC, arrive through the peer's.
    const NodeIndex out_nic = na.nic.value_or(a);
    const NodeIndex in_nic = nb.nic.value_or(b);
    auto inside = [&](NodeIndex h) {
      return [this, h, any_switch](NodeIndex v) { return any_switch(v) && host_[v] == h; };
    };
    auto fabric = [&](NodeIndex v) { return any_switch(v) && host_[v] == kNoHost; };
    ok = true;
    if (na.nic) ok = paths_.find(graph_, a, out_nic, inside(*na.host), hashed, out);
    const ShortestPaths::Choice across = choice_towards(in_nic, seed);
    if (ok && na.nic && nb.nic) ok = paths_.find(graph_, out_nic, in_nic, fabric, across, out);
    if (ok && !(na.nic && nb.nic)) ok = paths_.find(graph_, out_nic, in_nic, any_switch, across, out);
    if (ok && nb.nic) ok = paths_.find(graph_, in_nic, b, inside(*nb.host), hashed, out);
  } else {
    ok = paths_.find(graph_, a, b, any_switch, choice_towards(b, seed), out);
  }
  if (!ok) out.resize(start);
  return ok;
}

const Route& LinkGraph::route(int src_rank, int dst_rank) { return route(src_rank, dst_rank, 0); }

std::size_t LinkGraph::RouteKeyHash::operator()(const RouteKey& k) const noexcept {
  // splitmix64's finaliser over the three fields.
  std::uint64_t x = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(k.src)) << 32) ^
                    static_cast<std::uint32_t>(k.dst) ^ (static_cast<std::uint64_t>(k.flow) * 0x9e3779b97f4a7c15ULL);
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return static_cast<std::size_t>(x ^ (x >> 31));
}

void LinkGraph::pin_route(int src_rank, int dst_rank, Route r) { pinned_[{src_rank, dst_rank, 0}] = std::move(r); }

const Route* LinkGraph::pinned(int src_rank, int dst_rank) const {
  if (pinned_.empty()) return nullptr;
  const auto it = pinned_.find({src_rank, dst_rank, 0});
  return it != pinned_.end() ? &it->second : nullptr;
}

const Route& LinkGraph::route(int src_rank, int dst_rank, std::uint32_t flow) {
  if (const Route* fixed = pinned(src_rank, dst_rank)) return *fixed;
  const Route** slot = dense_entry(src_rank, dst_rank, flow);
  if (slot && *slot) return **slot;
  const RouteKey key{src_rank, dst_rank, flow};
  Slot& cached = slot_for(key);
  if (cached.route != kNoRoute) {
    const Route& known = blocks_[cached.route / kRouteBlock][cached.route % kRouteBlock];
    if (slot) *slot = &known;
    return known;
  }
  auto r = node_route(topo_.ranks.at(static_cast<std::size_t>(src_rank)), topo_.ranks.at(static_cast<std::size_t>(dst_rank)), flow);
  if (!r) throw_no_route(src_rank, dst_rank);
  const Route& stored = store(cached, key, std::move(*r));
  if (slot) *slot = &stored;
  return stored;
}

void LinkGraph::append_route(int src_rank, int dst_rank, std::vector<LinkId>& out) {
  const Route* known = pinned(src_rank, dst_rank);
  if (!known && routes_ > 0) {
    if (const Slot& cached = slot_for({src_rank, dst_rank, 0}); cached.route != kNoRoute) {
      known = &blocks_[cached.route / kRouteBlock][cached.route % kRouteBlock];
    }
  }
  if (known) {
    out.insert(out.end(), known->links.begin(), known->links.end());
    return;
  }
  if (!append_node_route(topo_.ranks.at(static_cast<std::size_t>(src_rank)),
                         topo_.ranks.at(static_cast<std::size_t>(dst_rank)), 0, out)) {
    throw_no_route(src_rank, dst_rank);
  }
}

void LinkGraph::throw_no_route(int src_rank, int dst_rank) const {
  const NodeIndex a = topo_.ranks.at(static_cast<std::size_t>(src_rank));
  const NodeIndex b = topo_.ranks.at(static_cast<std::size_t>(dst_rank));
  throw ConfigError(topo_.source, "/ranks",
                     fmt::format("rank {} ({}) and rank {} ({})", src_rank, topo_.nodes[a].id, dst_rank, topo_.nodes[b].id),
                     "a path of links between every pair of ranks");
}

LinkGraph::Slot& LinkGraph::slot_for(const RouteKey& key) {
  if (slots_.empty()) slots_.resize(1024);
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = RouteKeyHash{}(key) & mask;; i = (i + 1) & mask) {
    if (slots_[i].route == kNoRoute || slots_[i].key == key) return slots_[i];
  }
}

const Route& LinkGraph::store(Slot& slot, const RouteKey& key, Route r) {
  if (routes_ >= std::size_t{kNoRoute}) throw InternalError("LinkGraph: more than 2^32 - 1 cached routes");
  const auto number = static_cast<std::uint32_t>(routes_);
  if (routes_ % kRouteBlock == 0) blocks_.push_back(std::make_unique<Route[]>(kRouteBlock));
  Route& stored = blocks_.back()[routes_ % kRouteBlock];
  stored = std::move(r);
  ++routes_;
  slot = Slot{key, number};
  if (2 * routes_ > slots_.size()) {  // keep the table at most half full
    std::vector<Slot> old(2 * slots_.size());
    old.swap(slots_);
    for (const Slot& s : old) {
      if (s.route != kNoRoute) slot_for(s.key) = s;
    }
  }
  return stored;
}

const Route** LinkGraph::dense_entry(int src_rank, int dst_rank, std::uint32_t flow) {
  const int ranks = topo_.rank_count();
  if (flow != 0 || ranks > kDenseRouteRanks || src_rank < 0 || src_rank >= ranks || dst_rank < 0 || dst_rank >= ranks) {
    return nullptr;
  }
  const auto n = static_cast<std::size_t>(ranks);
  if (dense_.empty()) dense_.assign(n * n, nullptr);
  return &dense_[static_cast<std::size_t>(src_rank) * n + static_cast<std::size_t>(dst_rank)];
}

}  // namespace collsim
