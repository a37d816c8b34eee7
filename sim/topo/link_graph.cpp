#include "sim/topo/link_graph.hpp"

#include <algorithm>
#include <deque>
#include <limits>

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace collsim {

LinkGraph::LinkGraph(const Topology& topo) : topo_(topo), graph_(topo.nodes.size()) {
  for (std::uint32_t i = 0; i < topo.links.size(); ++i) {
    boost::add_edge(topo.links[i].from, topo.links[i].to, i, graph_);
  }
}

bool LinkGraph::can_transit(NodeKind k) {
  return k != NodeKind::Gpu && k != NodeKind::Host;
}

std::vector<bool> LinkGraph::reachable_from(NodeIndex from) const {
  std::vector<bool> seen(topo_.nodes.size(), false);
  std::deque<NodeIndex> todo{from};
  seen[from] = true;
  while (!todo.empty()) {
    const NodeIndex v = todo.front();
    todo.pop_front();
    if (v != from && !can_transit(topo_.nodes[v].kind)) continue;
    for (auto [e, end] = boost::out_edges(v, graph_); e != end; ++e) {
      const NodeIndex w = static_cast<NodeIndex>(boost::target(*e, graph_));
      if (!seen[w]) {
        seen[w] = true;
        todo.push_back(w);
      }
    }
  }
  return seen;
}

bool LinkGraph::shortest_path(NodeIndex from, NodeIndex to, std::vector<LinkId>& out) const {
  // Breadth-first search over out-edges in insertion order: the first path found with
  // the fewest hops wins, which makes the choice deterministic.
  constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
  std::vector<std::uint32_t> via(topo_.nodes.size(), kNone);
  std::vector<bool> seen(topo_.nodes.size(), false);
  std::deque<NodeIndex> todo{from};
  seen[from] = true;
  const auto edge_index = boost::get(boost::edge_index, graph_);
  while (!todo.empty() && !seen[to]) {
    const NodeIndex v = todo.front();
    todo.pop_front();
    if (v != from && !can_transit(topo_.nodes[v].kind)) continue;
    for (auto [e, end] = boost::out_edges(v, graph_); e != end; ++e) {
      const NodeIndex w = static_cast<NodeIndex>(boost::target(*e, graph_));
      if (seen[w]) continue;
      seen[w] = true;
      via[w] = edge_index[*e];
      todo.push_back(w);
    }
  }
  if (!seen[to]) return false;
  out.clear();
  for (NodeIndex v = to; v != from; v = topo_.links[via[v]].from) out.push_back(via[v]);
  std::reverse(out.begin(), out.end());
  return true;
}

const Route& LinkGraph::route(int src_rank, int dst_rank) {
  const auto key = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(src_rank)) << 32) |
                   static_cast<std::uint32_t>(dst_rank);
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  Route r;
  if (src_rank != dst_rank) {
    const NodeIndex a = topo_.ranks.at(static_cast<std::size_t>(src_rank));
    const NodeIndex b = topo_.ranks.at(static_cast<std::size_t>(dst_rank));
    if (!shortest_path(a, b, r.links)) {
      throw ConfigError(topo_.source, "/ranks", fmt::format("rank {} ({}) and rank {} ({})", src_rank,
                                                            topo_.nodes[a].id, dst_rank, topo_.nodes[b].id),
                        "a path of links between every pair of ranks");
    }
    for (LinkId l : r.links) r.latency += topo_.links[l].latency;
  }
  return cache_.emplace(key, std::move(r)).first->second;
}

}  // namespace collsim
