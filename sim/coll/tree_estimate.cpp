#include "sim/coll/tree_estimate.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "sim/algo/tree.hpp"
#include "sim/coll/flow_plan.hpp"
#include "sim/net/solo_rate.hpp"
#include "sim/net/static_max_min.hpp"

namespace collsim {

namespace {

// One direction of every edge of a channel's tree, by the breadth-first position of the
// rank below the edge (position 0, the root, has none).
struct EdgeCosts {
  std::vector<Time> latency;
  std::vector<double> rate;   // with both directions in flight
  std::vector<double> alone;  // with only this direction in flight
  // n positions, all zero.
  void assign(std::size_t n) {
    latency.assign(n, Time{});
    rate.assign(n, 0.0);
    alone.assign(n, 0.0);
  }
  [[nodiscard]] bool operator==(const EdgeCosts&) const = default;
};

// A channel's tree by positions, and its edges' costs: two channels equal here take the
// same time, whichever ranks they run on.
struct ChannelShape {
  std::vector<std::uint32_t> parent;  // parent's position, per position (0 for the root)
  EdgeCosts up, down;                 // up: towards the root; down: away from it
  [[nodiscard]] bool operator==(const ChannelShape&) const = default;
};

// Each rank's breadth-first position in `t`.
std::vector<std::uint32_t> positions(const RankTree& t) {
  const std::vector<int>& order = t.top_down();
  std::vector<std::uint32_t> pos(order.size());
  for (std::size_t q = 0; q < order.size(); ++q) pos[static_cast<std::size_t>(order[q])] = static_cast<std::uint32_t>(q);
  return pos;
}

ChannelShape shape_of(const RankTree& t, std::span<const std::uint32_t> pos) {
  const std::vector<int>& order = t.top_down();
  const std::size_t n = order.size();
  ChannelShape s;
  s.parent.assign(n, 0);
  for (std::size_t q = 1; q < n; ++q) s.parent[q] = pos[static_cast<std::size_t>(t.parent(order[q]))];
  s.up.assign(n);
  s.down.assign(n);
  return s;
}

// When an edge's flows have company from the other direction on their links, as a
// timing gives it: an up flow q -> parent leaves q's port with q's down flows to its
// children and enters the parent's port with the parent's own down flow; a down flow
// parent -> q leaves the parent's port with the parent's up flow and enters q's with
// q's children's up flows. An edge is charged its all-in-flight rate while a slice of
// such company is in flight, else its direction-alone rate.
struct EdgeSpan {
  Time first = Time::max();  // first start
  Time last{};               // last end
  void add(Time start, Time end) {
    first = std::min(first, start);
    last = std::max(last, end);
  }
  void add(const EdgeSpan& o) {
    first = std::min(first, o.first);
    last = std::max(last, o.last);
  }
  [[nodiscard]] bool during(Time t) const { return first <= t && t < last; }
  [[nodiscard]] bool operator==(const EdgeSpan&) const = default;
};

struct Activity {
  std::vector<EdgeSpan> up, down;  // per position: its edge's slices each way
  [[nodiscard]] bool operator==(const Activity&) const = default;
};

// Slice after slice through the tree's dependencies (double_binary_tree_allreduce's DAG):
// an up transfer after its children's and its own previous slice's, a down one after its
// parent's (the root's children: after all the root's inputs) and its own previous
// slice's; the route's latency before the first slice only. Company is read from `in`
// (the previous timing's activity); returns the end and this timing's activity.
Time time_channel(const ChannelShape& s, std::span<const Bytes> slices, const StepCost& cost, const Activity& in,
                  Activity& out) {
  const std::size_t n = s.parent.size();
  // What one direction of a position's edge needs per slice, side by side: the timing walks
  // every position once per slice, so it runs at the speed of memory.
  struct Lane {
    EdgeSpan company;       // the other direction's slices that share its ports (from `in`)
    Time both, alone;   // this slice size's time at each rate
    Time end;           // its latest slice's end
  };
  std::vector<Lane> up(n), down(n);
  // Company of each position's up flow (its children's downs, its parent's down) and of
  // its down flow (its parent's up, its children's ups).
  if (!in.up.empty()) {
    for (std::size_t q = 1; q < n; ++q) {
      const std::uint32_t p = s.parent[q];
      up[p].company.add(in.down[q]);
      down[p].company.add(in.up[q]);
      if (p != 0) {
        up[q].company.add(in.down[p]);
        down[q].company.add(in.up[p]);
      }
    }
  }
  out.up.assign(n, EdgeSpan{});
  out.down.assign(n, EdgeSpan{});
  std::vector<Time> inputs(n);
  Bytes timed{-1};
  for (std::size_t k = 0; k < slices.size(); ++k) {
    const Bytes wire = wire_bytes(slices[k], cost);
    if (wire != timed) {
      const auto bytes = static_cast<double>(wire.count);
      for (std::size_t q = 1; q < n; ++q) {
        up[q].both = transfer_time(bytes, s.up.rate[q]);
        up[q].alone = transfer_time(bytes, s.up.alone[q]);
        down[q].both = transfer_time(bytes, s.down.rate[q]);
        down[q].alone = transfer_time(bytes, s.down.alone[q]);
      }
      timed = wire;
    }
    const bool first = k == 0;
    // Children come after their parent breadth first: bottom-up, each position has all its
    // children's ends in inputs[] when it is reached (and clears it for the next slice).
    for (std::size_t q = n; q-- > 1;) {
      Lane& e = up[q];
      Time start = std::max(e.end, inputs[q]);
      if (first) {
        start = start + s.up.latency[q];
        out.up[q].first = start;
      }
      inputs[q] = Time{};
      e.end = start + (e.company.during(start) ? e.both : e.alone);
      Time& parent = inputs[s.parent[q]];
      parent = std::max(parent, e.end);
    }
    const Time root_ready = inputs[0];
    inputs[0] = Time{};
    for (std::size_t q = 1; q < n; ++q) {
      const std::uint32_t p = s.parent[q];
      Lane& e = down[q];
      Time start = std::max(e.end, p == 0 ? root_ready : down[p].end);
      if (first) {
        start = start + s.down.latency[q];
        out.down[q].first = start;
      }
      e.end = start + (e.company.during(start) ? e.both : e.alone);
    }
  }
  // A lane's slices start and end in order, so its span is its first start to its last end.
  Time end{};
  for (std::size_t q = 1; q < n; ++q) {
    out.up[q].last = up[q].end;
    out.down[q].last = down[q].end;
    end = std::max({end, up[q].end, down[q].end});
  }
  return end;
}

// Two positions of a tree whose subtrees are the same up to the order of siblings, with the
// same costs on matching edges, get the same subtree id: ids are given bottom-up, equal for
// equal (edge costs both ways, children's ids as a multiset), and shared by every tree
// asked about. Keys are compared whole, not by hash alone.
//
// Two channels whose roots have equal ids take the same time (a timing takes only maxima
// over a position's children and its parent): on a rail-optimised cluster a tree and its
// mirror often do, channel orders swapping which sibling's subtree holds which rail.
class SubtreeIds {
 public:
  // Each position's subtree id.
  std::vector<std::uint32_t> of(const ChannelShape& s) {
    const std::size_t n = s.parent.size();
    // The positions' own tree (position 0 the root), for its children lists.
    std::vector<int> parent(s.parent.begin(), s.parent.end());
    if (n > 0) parent[0] = -1;
    const RankTree tree(std::move(parent));
    std::vector<std::uint32_t> id(n, 0);
    // Positions are breadth first: a child after its parent, so bottom-up is backwards.
    for (std::size_t q = n; q-- > 0;) {
      key_.clear();
      for (const EdgeCosts* e : {&s.up, &s.down}) {
        key_.push_back(static_cast<std::uint64_t>(e->latency[q].ps));
        key_.push_back(bits(e->rate[q]));
        key_.push_back(bits(e->alone[q]));
      }
      const std::size_t head = key_.size();
      for (int c : tree.children(static_cast<int>(q))) key_.push_back(id[static_cast<std::size_t>(c)]);
      std::sort(key_.begin() + static_cast<std::ptrdiff_t>(head), key_.end());
      id[q] = ids_.try_emplace(key_, static_cast<std::uint32_t>(ids_.size())).first->second;
    }
    return id;
  }

 private:
  // A rate's bits (emscripten's library lacks std::bit_cast).
  static std::uint64_t bits(double v) {
    std::uint64_t out = 0;
    std::memcpy(&out, &v, sizeof out);
    return out;
  }

  struct KeyHash {
    std::size_t operator()(const std::vector<std::uint64_t>& key) const noexcept {
      std::uint64_t h = 0x9e3779b97f4a7c15ULL ^ key.size();
      for (std::uint64_t w : key) h = (h ^ w) * 0xff51afd7ed558ccdULL, h ^= h >> 32;
      return static_cast<std::size_t>(h);
    }
  };

  std::vector<std::uint64_t> key_;  // the key being built
  std::unordered_map<std::vector<std::uint64_t>, std::uint32_t, KeyHash> ids_;  // key -> its id
};

// The tree of s's positions up to symmetry. Two positions are alike when the paths from the
// root to them pass subtrees with the same ids, level by level: a symmetry of the tree (one
// that keeps its costs) then maps one to the other, so every timing gives them the same
// slices, ends and activity. Alike positions become one, under the one their parents became;
// a position's children then stand for all of its children (equal ones add nothing to a
// maximum or a span), so timing this tree gives s's time exactly, round by round. The
// 131,072-GPU cluster's tree keeps 1,048 of its positions.
ChannelShape symmetry_quotient(const ChannelShape& s, std::span<const std::uint32_t> subtree) {
  const std::size_t n = s.parent.size();
  ChannelShape out;
  if (n == 0) return out;
  std::vector<std::uint32_t> cls(n, 0);
  std::vector<std::size_t> first{0};  // each class's first position (breadth first)
  std::unordered_map<std::uint64_t, std::uint32_t> index;
  for (std::size_t q = 1; q < n; ++q) {
    const std::uint64_t key = (std::uint64_t{cls[s.parent[q]]} << 32) | subtree[q];
    const auto [it, fresh] = index.try_emplace(key, static_cast<std::uint32_t>(first.size()));
    if (fresh) first.push_back(q);
    cls[q] = it->second;
  }
  // Classes are numbered as they first appear breadth first, so a parent's comes first.
  const std::size_t m = first.size();
  out.parent.assign(m, 0);
  out.up.assign(m);
  out.down.assign(m);
  for (std::size_t k = 0; k < m; ++k) {
    const std::size_t q = first[k];
    out.parent[k] = k == 0 ? 0 : cls[s.parent[q]];
    for (auto [to, from] : {std::pair{&out.up, &s.up}, std::pair{&out.down, &s.down}}) {
      to->latency[k] = from->latency[q];
      to->rate[k] = from->rate[q];
      to->alone[k] = from->alone[q];
    }
  }
  return out;
}

// The edges that carry bytes, as flows: edge i's route is links[offsets[i], offsets[i + 1])
// of one array, and its costs are at position pos[i] of costs[side[i]] (a channel's up or
// down). Edges alternate up and down. 16 bytes an edge: a 131,072-rank plan has 2 x 10^6.
struct EdgeFlows {
  std::vector<LinkId> links;
  std::vector<std::size_t> offsets{0};
  std::vector<std::uint32_t> pos, side;
  std::vector<EdgeCosts*> costs;

  [[nodiscard]] std::size_t size() const { return pos.size(); }
  [[nodiscard]] EdgeCosts& costs_of(std::size_t i) const { return *costs[side[i]]; }
  [[nodiscard]] RouteTable routes(std::size_t first = 0, std::size_t stride = 1) const {
    return RouteTable{links, offsets, first, stride};
  }
};

// Each edge's max-min rates with every edge in flight, and with only its direction's.
// Returns whether every edge gets its solo rate with all in flight: then alone it gets the
// same, and when `only_if_exact` and not, the alone rates are left unsolved.
bool solve_rates(const Topology& topo, const EdgeFlows& edges, const std::optional<Bandwidth>& cap, bool only_if_exact) {
  std::vector<double> capacity;
  capacity.reserve(topo.links.size());
  for (const auto& link : topo.links) capacity.push_back(link.bandwidth.bytes_per_s);
  const double cap_rate = cap ? cap->bytes_per_s : 0.0;
  const RouteTable routes = edges.routes();
  const std::vector<double> both = static_max_min(capacity, routes, cap_rate);
  bool exact = true;
  for (std::size_t i = 0; i < edges.size(); ++i) {
    edges.costs_of(i).rate[edges.pos[i]] = both[i];
    exact = exact && both[i] == solo_rate(routes[i], cap_rate, [&](LinkId l) { return capacity[l]; });
  }
  if (exact) {
    for (std::size_t i = 0; i < edges.size(); ++i) {
      EdgeCosts& c = edges.costs_of(i);
      c.alone[edges.pos[i]] = c.rate[edges.pos[i]];
    }
    return true;
  }
  if (only_if_exact) return false;
  for (std::size_t from : {0, 1}) {
    const std::vector<double> alone = static_max_min(capacity, edges.routes(from, 2), cap_rate);
    for (std::size_t i = from, k = 0; i < edges.size(); i += 2, ++k) edges.costs_of(i).alone[edges.pos[i]] = alone[k];
  }
  return false;
}

constexpr int kMaxRounds = 8;

}  // namespace

std::optional<TreeEstimate> estimate_tree(const Collective& c, const AlgorithmOptions& opt, LinkGraph& graph,
                                          const StepCost& cost, bool only_if_exact, bool by_symmetry) {
  const TreeGroup one{&opt, {}};
  return estimate_trees(c, std::span<const TreeGroup>(&one, 1), graph, cost, only_if_exact, by_symmetry);
}

std::optional<TreeEstimate> estimate_trees(const Collective& c, std::span<const TreeGroup> groups, LinkGraph& graph,
                                           const StepCost& cost, bool only_if_exact, bool by_symmetry) {
  std::vector<TreePlan> plans;
  for (const TreeGroup& g : groups) plans.push_back(tree_plan(c, *g.options));
  const auto n = static_cast<std::size_t>(c.ranks);
  TreeEstimate out;
  for (const TreePlan& plan : plans) out.transfers += tree_transfers(plan, c.ranks);
  out.exact = true;
  if (n < 2 || groups.empty()) return out;
  const Topology& topo = graph.topology();
  // The trees of every group's channels, group by group: (group, channel) pairs.
  std::vector<std::pair<std::size_t, std::size_t>> trees;
  for (std::size_t k = 0; k < plans.size(); ++k) {
    for (int ch = 0; ch < plans[k].channels; ++ch) trees.emplace_back(k, static_cast<std::size_t>(ch));
  }
  std::vector<ChannelShape> shapes;
  shapes.reserve(trees.size());  // edges point into them
  // Every edge's route, both ways, in one array; the edges of the channels that carry
  // bytes keep their offsets into it. When the replay may follow (only_if_exact) they come from the graph's
  // route cache, which the replay reuses; otherwise this is the only use of each, and
  // searching them uncached spares filling the cache (2 x 10^6 routes on a 131,072-rank
  // plan).
  EdgeFlows edges;
  std::vector<LinkId>& links = edges.links;
  std::optional<LinkClassTable> classes;
  if (cost.protocol_latency && !cost.uniform_step_latency) classes.emplace(topo);
  // side: the edge's index in edges.costs, when its channel carries bytes; same: an edge
  // already routed between the same two ranks, whose route and latency are copied.
  std::span<const int> job_rank;  // the group being routed: its ranks in the job (empty: the job's own)
  auto add = [&](int from, int to, EdgeCosts& costs, std::size_t q, std::optional<std::uint32_t> side,
                 std::optional<std::size_t> same) {
    if (!job_rank.empty()) {
      from = job_rank[static_cast<std::size_t>(from)];
      to = job_rank[static_cast<std::size_t>(to)];
    }
    const std::size_t begin = links.size();
    if (same) {
      // Copied by index after growing: the source is in the same array (insert's range
      // may not be).
      const std::size_t from_begin = edges.offsets[*same], length = edges.offsets[*same + 1] - from_begin;
      links.resize(begin + length);
      std::copy_n(links.begin() + static_cast<std::ptrdiff_t>(from_begin), length,
                  links.begin() + static_cast<std::ptrdiff_t>(begin));
      costs.latency[q] = edges.costs_of(*same).latency[edges.pos[*same]];
    } else {
      if (only_if_exact) {
        const Route& r = graph.route(from, to);
        links.insert(links.end(), r.links.begin(), r.links.end());
      } else {
        graph.append_route(from, to, links);
      }
      costs.latency[q] = plan_latency(std::span<const LinkId>(links).subspan(begin), topo, cost, classes ? &*classes : nullptr);
    }
    if (side) {
      edges.pos.push_back(static_cast<std::uint32_t>(q));
      edges.side.push_back(*side);
      edges.offsets.push_back(links.size());
    } else {
      links.resize(begin);
    }
  };
  // Tree i's bytes per slice.
  auto bytes_of = [&](std::size_t i) {
    const TreePlan& plan = plans[trees[i].first];
    const auto slices = static_cast<std::size_t>(plan.slices);
    return std::span<const Bytes>(plan.pass_bytes.data() + trees[i].second * slices, slices);
  };
  auto carries = [&](std::size_t i) { return wire_bytes(bytes_of(i).front(), cost).count > 0; };
  std::size_t loading = 0;
  for (std::size_t i = 0; i < trees.size(); ++i) loading += carries(i);
  edges.pos.reserve(loading * 2 * (n - 1));
  edges.side.reserve(loading * 2 * (n - 1));
  edges.offsets.reserve(loading * 2 * (n - 1) + 1);
  // The trees of the channels routed so far that carry bytes, and each rank's up edge in
  // each (its down edge follows it). Channels share chains inside hosts (trees 2k and 2k + 1
  // have order k's), so most of a later channel's edges were routed before: copied, not
  // searched again (half the routes of a 131,072-rank plan).
  std::vector<const RankTree*> routed;
  std::vector<std::vector<std::size_t>> up_edge;
  for (std::size_t i = 0; i < trees.size(); ++i) {
    const auto [k, ch] = trees[i];
    if (ch == 0) {  // a new group: routes of its own
      routed.clear();
      up_edge.clear();
      job_rank = groups[k].job_rank;
    }
    const TreePlan& plan = plans[k];
    const RankTree& t = plan.trees[plan.tree_of_channel[ch]];
    const std::vector<std::uint32_t> pos = positions(t);
    ChannelShape& s = shapes.emplace_back(shape_of(t, pos));
    std::optional<std::uint32_t> up, down;
    std::vector<std::size_t>* mine = nullptr;
    if (carries(i)) {
      up = static_cast<std::uint32_t>(edges.costs.size());
      down = *up + 1;
      edges.costs.push_back(&s.up);
      edges.costs.push_back(&s.down);
      mine = &up_edge.emplace_back(n, 0);
    }
    // Edges by rank, not by breadth-first position: neighbouring ranks share hosts and
    // nodes, so their route searches hit memory the previous one brought in (a third of
    // the routes' time on the 131,072-GPU cluster).
    for (int me = 0; me < c.ranks; ++me) {
      const int parent = t.parent(me);
      if (parent < 0) continue;
      const auto r = static_cast<std::size_t>(me);
      std::optional<std::size_t> same;
      for (std::size_t o = 0; o < routed.size() && !same; ++o) {
        if (routed[o]->parent(me) == parent) same = up_edge[o][r];
      }
      if (mine) (*mine)[r] = edges.size();
      const std::size_t q = pos[r];
      add(me, parent, s.up, q, up, same);
      add(parent, me, s.down, q, down, same ? std::optional<std::size_t>(*same + 1) : std::nullopt);
    }
    if (mine) routed.push_back(&t);
    // The other channels' routes are about as long: one allocation, not a doubling that
    // holds the array twice.
    if (i == 0 && up) links.reserve(links.size() * loading + links.size() / 16);
  }
  // The trees are routed: their memory goes to the rate solve (a peak of 10^5-rank plans).
  for (TreePlan& plan : plans) std::vector<RankTree>().swap(plan.trees);
  std::vector<std::vector<std::size_t>>().swap(up_edge);
  out.exact = solve_rates(topo, edges, cost.flow_cap, only_if_exact);
  if (!out.exact && only_if_exact) return std::nullopt;
  // Channels alike in bytes and in shape, or in shape up to the order of siblings, take the
  // same time: each is timed once, on its tree up to symmetry.
  std::vector<std::size_t> timed;
  SubtreeIds ids;
  std::vector<std::vector<std::uint32_t>> subtree(trees.size());
  auto subtree_of = [&](std::size_t i) -> const std::vector<std::uint32_t>& {
    if (subtree[i].empty()) subtree[i] = ids.of(shapes[i]);
    return subtree[i];
  };
  for (std::size_t i = 0; i < trees.size(); ++i) {
    const std::span<const Bytes> mine = bytes_of(i);
    auto same_bytes = [&](std::size_t o) {
      const std::span<const Bytes> theirs = bytes_of(o);
      return std::equal(mine.begin(), mine.end(), theirs.begin(), theirs.end());
    };
    const bool seen =
        std::any_of(timed.begin(), timed.end(), [&](std::size_t o) { return same_bytes(o) && shapes[o] == shapes[i]; }) ||
        (by_symmetry && std::any_of(timed.begin(), timed.end(), [&](std::size_t o) {
           return same_bytes(o) && subtree_of(o).front() == subtree_of(i).front();
         }));
    if (seen) continue;
    timed.push_back(i);
    const ChannelShape reduced = by_symmetry ? symmetry_quotient(shapes[i], subtree_of(i)) : shapes[i];
    out.timed += reduced.parent.size();
    // Company depends on the times it gives: from none, timed again until it no longer
    // moves (a few rounds).
    Activity in, out2;
    Time d{};
    for (int round = 0; round < kMaxRounds; ++round) {
      d = time_channel(reduced, mine, cost, in, out2);
      if (out2 == in) break;
      std::swap(in, out2);
    }
    out.duration = std::max(out.duration, d);
  }
  return out;
}

}  // namespace collsim
