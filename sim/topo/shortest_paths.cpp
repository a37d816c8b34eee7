#include "sim/topo/shortest_paths.hpp"

#include <algorithm>

namespace collsim {

std::uint64_t stable_hash(std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  auto mix = [](std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
  };
  return mix(mix(mix(a) ^ b) ^ c);
}

ShortestPaths::ShortestPaths(const Topology& topo)
    : topo_(&topo),
      fwd_stamp_(topo.nodes.size(), 0),
      bwd_stamp_(topo.nodes.size(), 0),
      dist_stamp_(topo.nodes.size(), 0),
      fwd_(topo.nodes.size(), 0),
      bwd_(topo.nodes.size(), 0),
      to_go_(topo.nodes.size(), 0) {}

void ShortestPaths::reset() {
  if (++stamp_ == 0) {  // wrapped: clear every stamp once in 2^32 queries
    std::fill(fwd_stamp_.begin(), fwd_stamp_.end(), 0);
    std::fill(bwd_stamp_.begin(), bwd_stamp_.end(), 0);
    std::fill(dist_stamp_.begin(), dist_stamp_.end(), 0);
    stamp_ = 1;
  }
  fwd_order_.clear();
  scanned_ = 0;
}

// Bidirectional BFS. Both searches grow one whole level at a time, the smaller frontier
// first; the first level at which they share a node fixes the distance d = F + B (F, B:
// levels searched forward and backward), and every node of every shortest path has then
// been seen by one search or the other. Each node then gets `to_go` (hops left to `to`
// along a shortest path): its backward distance, or for forward-only nodes d - fwd when
// one successor has to_go = d - fwd - 1 (filled deepest level first). The path walks from
// `from`, each hop choosing (by `choice`) among successors with to_go one less.
bool ShortestPaths::find(const LinkGraphType& graph, NodeIndex from, NodeIndex to, const TransitRule& transit,
                         Choice choice, std::vector<LinkId>& out) {
  if (from == to) return true;
  reset();
  const std::uint32_t s = stamp_;
  const auto edge_index = boost::get(boost::edge_index, graph);
  auto passable = [&](NodeIndex v) { return v == from || v == to || transit(v); };

  fwd_stamp_[from] = s;
  fwd_[from] = 0;
  fwd_order_.push_back(from);
  bwd_stamp_[to] = s;
  bwd_[to] = 0;
  bwd_order_.assign(1, to);
  bwd_level_start_.assign({0, 1});
  std::vector<NodeIndex> ffront{from}, bfront{to};
  // Expanding a frontier costs the edges it scans: grow the side with fewer, so a hub (a
  // star's switch with 10^6 hosts) is met from both ends instead of being swept.
  auto cost = [&](const std::vector<NodeIndex>& front, bool forward) {
    std::size_t c = 0;
    for (NodeIndex v : front) c += forward ? boost::out_degree(v, graph) : boost::in_degree(v, graph);
    return c;
  };
  int best = -1;
  while (best < 0 && !ffront.empty() && !bfront.empty()) {
    next_.clear();
    if (cost(ffront, true) <= cost(bfront, false)) {
      for (NodeIndex v : ffront) {
        if (v != from && !transit(v)) continue;
        for (auto [e, end] = boost::out_edges(v, graph); e != end; ++e) {
          ++scanned_;
          const auto w = static_cast<NodeIndex>(boost::target(*e, graph));
          if (fwd_stamp_[w] == s || !passable(w)) continue;
          fwd_stamp_[w] = s;
          fwd_[w] = static_cast<std::uint16_t>(fwd_[v] + 1);
          fwd_order_.push_back(w);
          next_.push_back(w);
          if (bwd_stamp_[w] == s && (best < 0 || fwd_[w] + bwd_[w] < best)) best = fwd_[w] + bwd_[w];
        }
      }
      ffront.swap(next_);
    } else {
      for (NodeIndex v : bfront) {
        if (v != to && !transit(v)) continue;
        for (auto [e, end] = boost::in_edges(v, graph); e != end; ++e) {
          ++scanned_;
          const auto u = static_cast<NodeIndex>(boost::source(*e, graph));
          if (bwd_stamp_[u] == s || !passable(u)) continue;
          bwd_stamp_[u] = s;
          bwd_[u] = static_cast<std::uint16_t>(bwd_[v] + 1);
          next_.push_back(u);
          if (fwd_stamp_[u] == s && (best < 0 || fwd_[u] + bwd_[u] < best)) best = fwd_[u] + bwd_[u];
        }
      }
      bfront.swap(next_);
      bwd_order_.insert(bwd_order_.end(), bfront.begin(), bfront.end());
      bwd_level_start_.push_back(bwd_order_.size());
    }
  }
  if (best < 0) return false;

  auto to_go = [&](NodeIndex v) -> int {
    if (bwd_stamp_[v] == s) return bwd_[v];
    if (dist_stamp_[v] == s) return to_go_[v];
    return -1;
  };
  for (auto it = fwd_order_.rbegin(); it != fwd_order_.rend(); ++it) {
    const NodeIndex v = *it;
    if (bwd_stamp_[v] == s || (v != from && !transit(v))) continue;
    const int want = best - fwd_[v] - 1;
    if (want < 0) continue;
    for (auto [e, end] = boost::out_edges(v, graph); e != end; ++e) {
      ++scanned_;
      const auto w = static_cast<NodeIndex>(boost::target(*e, graph));
      if (passable(w) && to_go(w) == want) {
        dist_stamp_[v] = s;
        to_go_[v] = static_cast<std::uint16_t>(want + 1);
        break;
      }
    }
  }

  std::vector<LinkId> choices;
  NodeIndex v = from;
  for (int hop = 0; v != to; ++hop) {
    const int want = to_go(v) - 1;
    choices.clear();
    // Every successor one hop nearer to `to` than a backward-searched node was itself
    // found by the backward search, at level `want`. When that level has fewer in-edges
    // than v has out-edges, collect the links into it from v there; sorted, they are the
    // same candidates in the same (link) order as v's out-edges give.
    std::size_t level_in = 0;
    const auto level = static_cast<std::size_t>(want);
    const bool by_level = bwd_stamp_[v] == s && level + 1 < bwd_level_start_.size();
    const auto first = by_level ? bwd_order_.begin() + static_cast<std::ptrdiff_t>(bwd_level_start_[level]) : bwd_order_.end();
    const auto last = by_level ? bwd_order_.begin() + static_cast<std::ptrdiff_t>(bwd_level_start_[level + 1]) : bwd_order_.end();
    for (auto it = first; it != last; ++it) level_in += boost::in_degree(*it, graph);
    if (by_level && level_in < boost::out_degree(v, graph)) {
      for (auto it = first; it != last; ++it) {
        const NodeIndex w = *it;
        if (w != to && !transit(w)) continue;
        for (auto [e, end] = boost::in_edges(w, graph); e != end; ++e) {
          ++scanned_;
          if (static_cast<NodeIndex>(boost::source(*e, graph)) == v) choices.push_back(edge_index[*e]);
        }
      }
      std::sort(choices.begin(), choices.end());
    } else {
      for (auto [e, end] = boost::out_edges(v, graph); e != end; ++e) {
        ++scanned_;
        const auto w = static_cast<NodeIndex>(boost::target(*e, graph));
        if (to_go(w) == want && (w == to || transit(w))) choices.push_back(edge_index[*e]);
      }
    }
    if (choices.empty()) return false;  // cannot happen: every node with to_go >= 1 has a successor
    const LinkId pick = choices.size() == 1                                                  ? choices[0]
                        : choice.destination && topo_->links[choices[0]].kind == LinkKind::Ib ? choices[*choice.destination % choices.size()]
                        : choices[stable_hash(choice.seed, static_cast<std::uint64_t>(hop), choices.size()) % choices.size()];
    out.push_back(pick);
    v = topo_->links[pick].to;
  }
  return true;
}

}  // namespace collsim
