#include "sim/coll/group_isomorphism.hpp"

#include <algorithm>
#include <limits>

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

}  // namespace collsim
