#include "sim/coll/group_isomorphism.hpp"

#include <algorithm>
#include <limits>
#include <map>

namespace collsim {

namespace {

constexpr LinkId kNone = std::numeric_limits<LinkId>::max();

// A one-to-one correspondence between links of two routes sets, built pair by pair.
class LinkMatcher {
 public:
  explicit LinkMatcher(const Topology& topo)
      : topo_(topo), forward_(topo.links.size(), kNone), backward_(topo.links.size(), kNone) {}

  // Routes a (the reference) and b correspond link by link.
  bool match(const std::vector<LinkId>& a, const std::vector<LinkId>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t p = 0; p < a.size(); ++p) {
      if (!match(a[p], b[p])) return false;
    }
    return true;
  }

  void reset() {
    for (LinkId l : touched_) forward_[l] = backward_[l] = kNone;
    touched_.clear();
  }

 private:
  bool match(LinkId a, LinkId b) {
    if (forward_[a] == kNone && backward_[b] == kNone) {
      const DirectedLink& x = topo_.links[a];
      const DirectedLink& y = topo_.links[b];
      const bool same = x.kind == y.kind && x.bandwidth == y.bandwidth && x.latency == y.latency &&
                        x.line_rate == y.line_rate && x.lanes == y.lanes && x.mtu == y.mtu;
      if (!same) return false;
      forward_[a] = b;
      backward_[b] = a;
      touched_.push_back(a);
      touched_.push_back(b);
      return true;
    }
    return forward_[a] == b && backward_[b] == a;
  }

  const Topology& topo_;
  std::vector<LinkId> forward_, backward_, touched_;
};

NodeIndex host_of(const Topology& topo, int rank) {
  const NodeIndex node = topo.ranks[static_cast<std::size_t>(rank)];
  return topo.nodes[node].host.value_or(node);
}

}  // namespace

std::vector<std::pair<int, int>> rank_pairs(const Schedule& s) {
  std::vector<std::pair<int, int>> pairs;
  for (TransferId t = 0; t < s.size(); ++t) {
    const Transfer tr = s.transfer(t);
    if (tr.src != tr.dst) pairs.emplace_back(tr.src, tr.dst);
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  return pairs;
}

bool independent_copies(LinkGraph& graph, const std::vector<std::pair<int, int>>& pairs,
                        const std::vector<std::vector<int>>& groups) {
  const Topology& topo = graph.topology();
  std::vector<int> owner(topo.links.size(), -1);
  std::vector<int> rank_owner(static_cast<std::size_t>(topo.rank_count()), -1);
  LinkMatcher matcher(topo);
  for (std::size_t k = 0; k < groups.size(); ++k) {
    for (int r : groups[k]) {
      if (rank_owner[static_cast<std::size_t>(r)] != -1) return false;
      rank_owner[static_cast<std::size_t>(r)] = static_cast<int>(k);
    }
    matcher.reset();  // each group against group 0 on its own
    for (const auto& [i, j] : pairs) {
      const std::vector<LinkId> base = graph.route(groups[0][static_cast<std::size_t>(i)], groups[0][static_cast<std::size_t>(j)]).links;
      const std::vector<LinkId>& here = graph.route(groups[k][static_cast<std::size_t>(i)], groups[k][static_cast<std::size_t>(j)]).links;
      for (LinkId b : here) {
        if (owner[b] != -1 && owner[b] != static_cast<int>(k)) return false;
        owner[b] = static_cast<int>(k);
      }
      if (!matcher.match(base, here)) return false;
    }
  }
  return true;
}

bool same_play(LinkGraph& graph, const std::vector<std::pair<int, int>>& pairs, const std::vector<std::vector<int>>& a,
               const std::vector<std::vector<int>>& b) {
  if (a.size() != b.size()) return false;
  const Topology& topo = graph.topology();
  // (1) Hosts (one-to-one) and positions within them.
  std::map<NodeIndex, NodeIndex> host_ab, host_ba;
  for (std::size_t k = 0; k < a.size(); ++k) {
    if (a[k].size() != b[k].size()) return false;
    for (std::size_t i = 0; i < a[k].size(); ++i) {
      const NodeIndex ha = host_of(topo, a[k][i]), hb = host_of(topo, b[k][i]);
      const auto x = host_ab.try_emplace(ha, hb).first;
      const auto y = host_ba.try_emplace(hb, ha).first;
      if (x->second != hb || y->second != ha) return false;
    }
  }
  // The index within the host: distance to the host's lowest rank.
  const auto lowest = [&topo](int r) {
    const NodeIndex h = host_of(topo, r);
    while (r > 0 && host_of(topo, r - 1) == h) --r;
    return r;
  };
  for (std::size_t k = 0; k < a.size(); ++k) {
    for (std::size_t i = 0; i < a[k].size(); ++i) {
      if (a[k][i] - lowest(a[k][i]) != b[k][i] - lowest(b[k][i])) return false;
    }
  }
  // (2) Routes: the schedule's pairs in every group, then group 0's hosts pairwise.
  LinkMatcher matcher(topo);
  const auto routes_match = [&](int ra, int rb, int sa, int sb) {
    const std::vector<LinkId> x = graph.route(ra, sa).links;
    const std::vector<LinkId>& y = graph.route(rb, sb).links;
    return matcher.match(x, y);
  };
  for (std::size_t k = 0; k < a.size(); ++k) {
    for (const auto& [i, j] : pairs) {
      const auto iu = static_cast<std::size_t>(i), ju = static_cast<std::size_t>(j);
      if (!routes_match(a[k][iu], b[k][iu], a[k][ju], b[k][ju])) return false;
    }
  }
  std::vector<std::size_t> firsts;  // positions in group 0 of each host's first member
  std::vector<NodeIndex> seen;
  for (std::size_t i = 0; i < a[0].size(); ++i) {
    const NodeIndex h = host_of(topo, a[0][i]);
    if (std::find(seen.begin(), seen.end(), h) == seen.end()) {
      seen.push_back(h);
      firsts.push_back(i);
    }
  }
  for (std::size_t x : firsts) {
    for (std::size_t y : firsts) {
      if (x != y && !routes_match(a[0][x], b[0][x], a[0][y], b[0][y])) return false;
    }
  }
  return true;
}

}  // namespace collsim
