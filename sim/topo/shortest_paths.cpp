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

LinkGraphType make_link_graph(const Topology& topo) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> ends;
  std::vector<LinkEdge> props;
  ends.reserve(topo.links.size());
  props.reserve(topo.links.size());
  for (std::uint32_t i = 0; i < topo.links.size(); ++i) {
    ends.emplace_back(topo.links[i].from, topo.links[i].to);
    props.push_back(LinkEdge{i});
  }
  // The unsorted-edges constructor places edges by a stable counting sort on their
  // source, so each vertex's out-edges keep link order (ECMP picks by position in it).
  return LinkGraphType(boost::edges_are_unsorted_multi_pass, ends.begin(), ends.end(), props.begin(),
                       static_cast<std::uint32_t>(topo.nodes.size()));
}

ShortestPaths::ShortestPaths(const Topology& topo)
    : topo_(&topo),
      mark_(topo.nodes.size()) {}

void ShortestPaths::reset() {
  if (++stamp_ == 0) {  // wrapped: clear every stamp once in 2^32 queries
    std::fill(mark_.begin(), mark_.end(), Mark{});
    stamp_ = 1;
  }
  fwd_order_.clear();
}

LinkId ShortestPaths::pick(const std::vector<LinkId>& candidates, const Choice& choice, int hop) const {
  const std::size_t n = candidates.size();
  if (n == 1) return candidates[0];
  if (choice.destination && topo_->links[candidates[0]].kind == LinkKind::Ib) return candidates[*choice.destination % n];
  return candidates[stable_hash(choice.seed, static_cast<std::uint64_t>(hop), n) % n];
}

// The search below, for paths of 1 or 2 hops: it would find every link from -> to (a
// distance of 1), else every from -> w -> to with w passable (a distance of 2), and offer
// each hop's candidates in link order: the links from `from` (out-edges are in link
// order), then the links from the chosen w to `to` (sorted here: in-edges are not).
bool ShortestPaths::find_short(const LinkGraphType& graph, NodeIndex from, NodeIndex to, const TransitRule& transit,
                               Choice choice, std::vector<LinkId>& out) {
  // Each candidate w costs a scan of `to`'s in-edges: only where both ends are small.
  constexpr std::size_t kMostPairs = 256;
  if (boost::out_degree(from, graph) * boost::in_degree(to, graph) > kMostPairs) return false;
  std::vector<LinkId>& choices = choices_;
  choices.clear();
  for (auto [e, end] = boost::out_edges(from, graph); e != end; ++e) {
    ++scanned_;
    if (static_cast<NodeIndex>(boost::target(*e, graph)) == to) choices.push_back(graph[*e].link);
  }
  if (!choices.empty()) {
    out.push_back(pick(choices, choice, 0));
    return true;
  }
  auto links_into_to = [&](NodeIndex w, std::vector<LinkId>& into) {
    for (auto [e, end] = boost::in_edges(to, graph); e != end; ++e) {
      ++scanned_;
      if (static_cast<NodeIndex>(boost::source(*e, graph)) == w) into.push_back(graph[*e].link);
    }
  };
  std::vector<LinkId>& second = second_;
  for (auto [e, end] = boost::out_edges(from, graph); e != end; ++e) {
    ++scanned_;
    const auto w = static_cast<NodeIndex>(boost::target(*e, graph));
    if (w == from || !transit(w)) continue;
    second.clear();
    links_into_to(w, second);
    if (!second.empty()) choices.push_back(graph[*e].link);
  }
  if (choices.empty()) return false;
  const LinkId first = pick(choices, choice, 0);
  second.clear();
  links_into_to(topo_->links[first].to, second);
  std::sort(second.begin(), second.end());
  out.push_back(first);
  out.push_back(pick(second, choice, 1));
  return true;
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
  scanned_ = 0;
  if (shortcut_ && find_short(graph, from, to, transit, choice, out)) return true;
  reset();
  const std::uint32_t s = stamp_;
  auto passable = [&](NodeIndex v) { return v == from || v == to || transit(v); };

  mark_[from].fwd_stamp = s;
  mark_[from].fwd = 0;
  fwd_order_.push_back(from);
  mark_[to].bwd_stamp = s;
  mark_[to].bwd = 0;
  bwd_order_.assign(1, to);
  bwd_level_start_.assign({0, 1});
  std::vector<NodeIndex>& ffront = ffront_;
  std::vector<NodeIndex>& bfront = bfront_;
  ffront.assign(1, from);
  bfront.assign(1, to);
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
          if (mark_[w].fwd_stamp == s || !passable(w)) continue;
          mark_[w].fwd_stamp = s;
          mark_[w].fwd = static_cast<std::uint16_t>(mark_[v].fwd + 1);
          fwd_order_.push_back(w);
          next_.push_back(w);
          if (mark_[w].bwd_stamp == s && (best < 0 || mark_[w].fwd + mark_[w].bwd < best)) best = mark_[w].fwd + mark_[w].bwd;
        }
      }
      ffront.swap(next_);
    } else {
      for (NodeIndex v : bfront) {
        if (v != to && !transit(v)) continue;
        for (auto [e, end] = boost::in_edges(v, graph); e != end; ++e) {
          ++scanned_;
          const auto u = static_cast<NodeIndex>(boost::source(*e, graph));
          if (mark_[u].bwd_stamp == s || !passable(u)) continue;
          mark_[u].bwd_stamp = s;
          mark_[u].bwd = static_cast<std::uint16_t>(mark_[v].bwd + 1);
          next_.push_back(u);
          if (mark_[u].fwd_stamp == s && (best < 0 || mark_[u].fwd + mark_[u].bwd < best)) best = mark_[u].fwd + mark_[u].bwd;
        }
      }
      bfront.swap(next_);
      bwd_order_.insert(bwd_order_.end(), bfront.begin(), bfront.end());
      bwd_level_start_.push_back(bwd_order_.size());
    }
  }
  if (best < 0) return false;

  auto to_go = [&](NodeIndex v) -> int {
    if (mark_[v].bwd_stamp == s) return mark_[v].bwd;
    if (mark_[v].dist_stamp == s) return mark_[v].to_go;
    return -1;
  };
  for (auto it = fwd_order_.rbegin(); it != fwd_order_.rend(); ++it) {
    const NodeIndex v = *it;
    if (mark_[v].bwd_stamp == s || (v != from && !transit(v))) continue;
    const int want = best - mark_[v].fwd - 1;
    if (want < 0) continue;
    for (auto [e, end] = boost::out_edges(v, graph); e != end; ++e) {
      ++scanned_;
      const auto w = static_cast<NodeIndex>(boost::target(*e, graph));
      if (passable(w) && to_go(w) == want) {
        mark_[v].dist_stamp = s;
        mark_[v].to_go = static_cast<std::uint16_t>(want + 1);
        break;
      }
    }
  }

  std::vector<LinkId>& choices = choices_;
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
    const bool by_level = mark_[v].bwd_stamp == s && level + 1 < bwd_level_start_.size();
    const auto first = by_level ? bwd_order_.begin() + static_cast<std::ptrdiff_t>(bwd_level_start_[level]) : bwd_order_.end();
    const auto last = by_level ? bwd_order_.begin() + static_cast<std::ptrdiff_t>(bwd_level_start_[level + 1]) : bwd_order_.end();
    for (auto it = first; it != last; ++it) level_in += boost::in_degree(*it, graph);
    if (by_level && level_in < boost::out_degree(v, graph)) {
      for (auto it = first; it != last; ++it) {
        const NodeIndex w = *it;
        if (w != to && !transit(w)) continue;
        for (auto [e, end] = boost::in_edges(w, graph); e != end; ++e) {
          ++scanned_;
          if (static_cast<NodeIndex>(boost::source(*e, graph)) == v) choices.push_back(graph[*e].link);
        }
      }
      std::sort(choices.begin(), choices.end());
    } else {
      for (auto [e, end] = boost::out_edges(v, graph); e != end; ++e) {
        ++scanned_;
        const auto w = static_cast<NodeIndex>(boost::target(*e, graph));
        if (to_go(w) == want && (w == to || transit(w))) choices.push_back(graph[*e].link);
      }
    }
    if (choices.empty()) return false;  // cannot happen: every node with to_go >= 1 has a successor
    const LinkId next = pick(choices, choice, hop);
    out.push_back(next);
    v = topo_->links[next].to;
  }
  return true;
}

}  // namespace collsim
