#include "sim/topo/topology_rules.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/text.hpp"

#include "sim/topo/link_graph.hpp"

namespace collsim {

namespace {

std::string node_pointer(NodeIndex n) { return fmt::format("/nodes/{}", n); }

// Unreachable pairs are listed up to this many; then one error counts the rest, so a
// cut-off fabric of 16384 GPUs does not print 16384 lines.
constexpr std::size_t kMaxUnreachableListed = 20;

struct Unreachable {
  std::size_t count = 0;
};

void unreachable(const Topology& t, NodeIndex from, NodeIndex to, Diagnostics& d, Unreachable& u) {
  if (++u.count > kMaxUnreachableListed) return;
  const Node& a = t.nodes[from];
  const Node& b = t.nodes[to];
  d.emplace_back(t.source, node_pointer(from),
                 fmt::format("{} \"{}\" with no path to {} \"{}\"", to_string(a.kind), a.id, to_string(b.kind), b.id),
                 "a path of links (through switches, NICs or CPUs, not through other GPUs or hosts) between "
                 "every pair of ranks");
}

// Whether LinkGraph::node_route finds a route, answered without finding it: the same
// segments under the same transit rules (see node_route), each a question of reachability.
// The wide searches (across the fabric, from or to the anchor rank's NIC) are made once
// and kept, and only the small ones inside a host are made per rank, so checking one rank
// against all the others costs about the links once, not one route search per rank.
class RouteExistence {
 public:
  explicit RouteExistence(const Topology& t)
      : t_(t), stamp_of_(t.nodes.size(), 0), transit_(t.nodes.size()), host_(t.nodes.size()) {
    const std::size_t n = t.nodes.size();
    for (std::size_t v = 0; v < n; ++v) {
      transit_[v] = LinkGraph::can_transit(t.nodes[v].kind);
      host_[v] = t.nodes[v].host ? static_cast<std::int64_t>(*t.nodes[v].host) : kNoHost;
    }
    out_begin_.assign(n + 1, 0);
    in_begin_.assign(n + 1, 0);
    for (const DirectedLink& l : t.links) {
      ++out_begin_[l.from + 1];
      ++in_begin_[l.to + 1];
    }
    for (std::size_t v = 0; v < n; ++v) {
      out_begin_[v + 1] += out_begin_[v];
      in_begin_[v + 1] += in_begin_[v];
    }
    out_.resize(t.links.size());
    in_.resize(t.links.size());
    std::vector<std::uint32_t> o(out_begin_.begin(), out_begin_.end() - 1), i(in_begin_.begin(), in_begin_.end() - 1);
    for (const DirectedLink& l : t.links) {
      out_[o[l.from]++] = l.to;
      in_[i[l.to]++] = l.from;
    }
  }

  // A route from a to b, where `anchor` (a or b) is the end whose wide searches are kept.
  bool exists(NodeIndex a, NodeIndex b, NodeIndex anchor) {
    if (a == b) return true;
    const Node& na = t_.nodes[a];
    const Node& nb = t_.nodes[b];
    const bool forward = anchor == a;
    if (na.host && nb.host && *na.host != *nb.host && (na.nic || nb.nic)) {
      const NodeIndex out_nic = na.nic.value_or(a);
      const NodeIndex in_nic = nb.nic.value_or(b);
      if (na.nic && !local(a, out_nic, *na.host, forward)) return false;
      if (!wide(out_nic, in_nic, na.nic && nb.nic ? kFabric : kAnySwitch, forward)) return false;
      return !nb.nic || local(in_nic, b, *nb.host, !forward);
    }
    // Same host: NVLink first, then the host's switches, then anything; a path exists
    // under one of the narrower rules only if it exists under the widest.
    return wide(a, b, kAnySwitch, forward);
  }

  // Every node reachable from `from` through nodes that can transit (switches, NICs, CPUs).
  std::vector<bool> reachable_from(NodeIndex from) { return marks(search(from, kAnySwitch, true)); }

  // Whether every rank reaches every other, shown in time linear in the links. The transit
  // nodes that the first transit neighbour of rank 0 (the seed) both reaches and is reached
  // from, through transit nodes, form a core in which any node reaches any other (through
  // the seed). A rank with a link into the core and one out of it reaches, through the core,
  // every rank with the same. False means only "not shown this way": check rank by rank.
  bool ranks_meet_in_one_core() {
    const NodeIndex r0 = t_.ranks.front();
    const auto first = std::find_if(out_.begin() + out_begin_[r0], out_.begin() + out_begin_[r0 + 1],
                                    [this](NodeIndex w) { return transit_[w] != 0; });
    if (first == out_.begin() + out_begin_[r0 + 1]) return false;
    const std::vector<bool> reached = marks(search(*first, kAnySwitch, true));
    const std::uint32_t reaching = search(*first, kAnySwitch, false);  // the last search: its stamps stay
    auto in_core = [&](NodeIndex v) { return transit_[v] != 0 && reached[v] && stamp_of_[v] == reaching; };
    for (NodeIndex r : t_.ranks) {
      const bool into = std::any_of(out_.begin() + out_begin_[r], out_.begin() + out_begin_[r + 1], in_core);
      const bool from = std::any_of(in_.begin() + in_begin_[r], in_.begin() + in_begin_[r + 1], in_core);
      if (!into || !from) return false;
    }
    return true;
  }

 private:
  static constexpr int kAnySwitch = -1;  // rule: any node that can transit
  static constexpr int kFabric = -2;     // rule: a transit node outside every host
  // rule >= 0: a transit node of that host.
  [[nodiscard]] bool passes(NodeIndex v, std::int64_t rule) const {
    if (!transit_[v]) return false;
    if (rule == kAnySwitch) return true;
    if (rule == kFabric) return host_[v] == kNoHost;
    return host_[v] == rule;
  }

  // Marks with a fresh stamp every node reachable from `from` (forward) or reaching it
  // (backward) by a path whose inner nodes pass `rule`; returns the stamp.
  std::uint32_t search(NodeIndex from, std::int64_t rule, bool forward) {
    const std::uint32_t stamp = ++stamp_;
    if (stamp == 0) throw InternalError("route check: search stamps wrapped");
    const auto& begin = forward ? out_begin_ : in_begin_;
    const auto& next = forward ? out_ : in_;
    todo_.assign(1, from);
    stamp_of_[from] = stamp;
    for (std::size_t k = 0; k < todo_.size(); ++k) {
      const NodeIndex v = todo_[k];
      if (v != from && !passes(v, rule)) continue;
      for (std::uint32_t e = begin[v]; e < begin[v + 1]; ++e) {
        const NodeIndex w = next[e];
        if (stamp_of_[w] != stamp) {
          stamp_of_[w] = stamp;
          todo_.push_back(w);
        }
      }
    }
    return stamp;
  }

  // Inside one host: a small search, kept only on the anchor's side (the same question
  // for every rank).
  bool local(NodeIndex a, NodeIndex b, NodeIndex host, bool anchor_side) {
    const auto key = std::make_tuple(a, b);
    if (anchor_side) {
      if (auto it = local_kept_.find(key); it != local_kept_.end()) return it->second;
    }
    const std::uint32_t stamp = search(a, host, true);
    const bool found = stamp_of_[b] == stamp;
    if (anchor_side) local_kept_.emplace(key, found);
    return found;
  }

  // Across the fabric: from a kept search of the anchor's end (one per end, rule and
  // direction), a whole search's marks copied out once.
  bool wide(NodeIndex a, NodeIndex b, std::int64_t rule, bool forward) {
    const NodeIndex from = forward ? a : b;
    const auto key = std::make_tuple(from, rule, forward);
    auto it = kept_.find(key);
    if (it == kept_.end()) it = kept_.emplace(key, marks(search(from, rule, forward))).first;
    return it->second[forward ? b : a];
  }

  // The nodes the search that returned `stamp` (the last one) reached.
  [[nodiscard]] std::vector<bool> marks(std::uint32_t stamp) const {
    std::vector<bool> seen(t_.nodes.size());
    for (NodeIndex v : todo_) seen[v] = stamp_of_[v] == stamp;
    return seen;
  }

  const Topology& t_;
  std::vector<std::uint32_t> out_begin_, in_begin_;
  std::vector<NodeIndex> out_, in_;
  std::vector<std::uint32_t> stamp_of_;
  std::uint32_t stamp_ = 0;
  std::vector<NodeIndex> todo_;
  std::map<std::tuple<NodeIndex, std::int64_t, bool>, std::vector<bool>> kept_;
  std::map<std::tuple<NodeIndex, NodeIndex>, bool> local_kept_;
  // Per node: whether it can transit, and its host (kNoHost: none), apart from the names.
  static constexpr std::int64_t kNoHost = -1;
  std::vector<std::uint8_t> transit_;
  std::vector<std::int64_t> host_;
};

// Up to 2048 ranks: exact for any link set. Usually shown at once (every rank meets the
// others in one core of switches); otherwise one search per rank, which also names the
// pairs without a path. Larger (generated) fabrics rely on check_routes below (rank 0 to
// every rank and back).
void check_reachable(const Topology& t, Diagnostics& d, Unreachable& u) {
  if (t.ranks.size() > 2048) return;
  RouteExistence g(t);
  if (g.ranks_meet_in_one_core()) return;
  for (NodeIndex r : t.ranks) {
    const auto seen = g.reachable_from(r);
    for (NodeIndex q : t.ranks) {
      if (!seen[q]) unreachable(t, r, q, d, u);
    }
  }
}

// Rail-aware routes (GPU -> own NIC -> fabric -> peer's NIC -> peer) are stricter than
// plain reachability: check rank 0 to every rank and back.
void check_routes(const Topology& t, Diagnostics& d, Unreachable& u) {
  for (const auto& [a, b] : pairs_without_route(t, t.ranks.front())) unreachable(t, a, b, d, u);
}

}  // namespace

std::optional<std::string> link_endpoint_rule(LinkKind k, NodeKind a, NodeKind b) {
  auto both = [&](auto pred) { return pred(a) && pred(b); };
  switch (k) {
    case LinkKind::NvLink:
    case LinkKind::NvSwitch:
      if (both([](NodeKind n) { return n == NodeKind::Gpu || n == NodeKind::NvSwitch; })) return std::nullopt;
      return "an NVLink or NVSwitch link between GPUs and NVSwitches only";
    case LinkKind::Pcie:
      if (both([](NodeKind n) { return n != NodeKind::NvSwitch && n != NodeKind::Switch; })) return std::nullopt;
      return "a PCIe link between GPUs, PCIe switches, CPUs, NICs and hosts only (not an NVSwitch or network switch)";
    case LinkKind::Ib:
    case LinkKind::Roce:
    case LinkKind::Ethernet:
      if (both([](NodeKind n) { return n == NodeKind::Nic || n == NodeKind::Switch || n == NodeKind::Host; })) {
        return std::nullopt;
      }
      return "a network link (ib, roce, ethernet) between NICs, network switches and hosts only";
  }
  return std::nullopt;
}

void check_topology_rules(const Topology& t, Diagnostics& d) {
  for (NodeIndex n = 0; n < t.nodes.size(); ++n) {
    const Node& node = t.nodes[n];
    if (node.nic && t.nodes[*node.nic].host != node.host) {
      d.emplace_back(t.source, node_pointer(n) + "/nic", in_quotes(t.nodes[*node.nic].id),
                     "a NIC in the same host as the GPU (give both the same \"host\")");
    }
  }
  if (!d.empty() || t.ranks.empty()) return;
  Unreachable u;
  check_reachable(t, d, u);
  if (u.count == 0) check_routes(t, d, u);
  if (u.count > kMaxUnreachableListed) {
    d.emplace_back(t.source, "/ranks", fmt::format("{} more pairs of ranks without a path", u.count - kMaxUnreachableListed),
                   "a path of links between every pair of ranks");
  }
}

std::vector<std::pair<NodeIndex, NodeIndex>> pairs_without_route(const Topology& t, NodeIndex anchor) {
  RouteExistence routes(t);
  std::vector<std::pair<NodeIndex, NodeIndex>> out;
  for (NodeIndex r : t.ranks) {
    if (!routes.exists(anchor, r, anchor)) {
      out.emplace_back(anchor, r);
    } else if (!routes.exists(r, anchor, anchor)) {
      out.emplace_back(r, anchor);
    }
  }
  return out;
}

}  // namespace collsim
