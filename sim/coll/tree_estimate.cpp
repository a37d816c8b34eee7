#include "sim/coll/tree_estimate.hpp"

#include <algorithm>
#include <optional>
#include <span>
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
  for (EdgeCosts* e : {&s.up, &s.down}) {
    e->latency.assign(n, Time{});
    e->rate.assign(n, 0.0);
    e->alone.assign(n, 0.0);
  }
  return s;
}

// When an edge's flows have company from the other direction on their links, as a
// timing gives it: an up flow q -> parent leaves q's port with q's down flows to its
// children and enters the parent's port with the parent's own down flow; a down flow
// parent -> q leaves the parent's port with the parent's up flow and enters q's with
// q's children's up flows. An edge is charged its all-in-flight rate while a slice of
// such company is in flight, else its direction-alone rate.
struct Span {
  Time first = Time::max();  // first start
  Time last{};               // last end
  void add(Time start, Time end) {
    first = std::min(first, start);
    last = std::max(last, end);
  }
  void add(const Span& o) {
    first = std::min(first, o.first);
    last = std::max(last, o.last);
  }
  [[nodiscard]] bool during(Time t) const { return first <= t && t < last; }
  [[nodiscard]] bool operator==(const Span&) const = default;
};

struct Activity {
  std::vector<Span> up, down;  // per position: its edge's slices each way
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
    Span company;       // the other direction's slices that share its ports (from `in`)
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
  out.up.assign(n, Span{});
  out.down.assign(n, Span{});
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

struct EdgeFlow {
  EdgeCosts* costs;         // its direction of its channel
  std::size_t pos;          // the position below the edge
  std::size_t begin, end;   // its route: links[begin, end) of the edges' one array
};

// Each edge's max-min rates with every edge in flight, and with only its direction's
// (edges alternate up and down). Returns whether every edge gets its solo rate with all
// in flight: then alone it gets the same, and when `only_if_exact` and not, the alone rates
// are left unsolved.
bool solve_rates(const Topology& topo, const std::vector<EdgeFlow>& edges, std::span<const LinkId> links,
                 const std::optional<Bandwidth>& cap, bool only_if_exact) {
  std::vector<double> capacity;
  capacity.reserve(topo.links.size());
  for (const auto& link : topo.links) capacity.push_back(link.bandwidth.bytes_per_s);
  const double cap_rate = cap ? cap->bytes_per_s : 0.0;
  std::vector<std::span<const LinkId>> routes;
  routes.reserve(edges.size());
  for (const EdgeFlow& e : edges) routes.push_back(links.subspan(e.begin, e.end - e.begin));
  const std::vector<double> both = static_max_min(capacity, routes, cap_rate);
  bool exact = true;
  for (std::size_t i = 0; i < edges.size(); ++i) {
    edges[i].costs->rate[edges[i].pos] = both[i];
    exact = exact && both[i] == solo_rate(routes[i], cap_rate, [&](LinkId l) { return capacity[l]; });
  }
  if (exact) {
    for (const EdgeFlow& e : edges) e.costs->alone[e.pos] = e.costs->rate[e.pos];
    return true;
  }
  if (only_if_exact) return false;
  for (std::size_t from : {0, 1}) {
    std::vector<std::span<const LinkId>> one;
    one.reserve(edges.size() / 2);
    for (std::size_t i = from; i < edges.size(); i += 2) one.push_back(routes[i]);
    const std::vector<double> alone = static_max_min(capacity, one, cap_rate);
    for (std::size_t i = from, k = 0; i < edges.size(); i += 2, ++k) edges[i].costs->alone[edges[i].pos] = alone[k];
  }
  return false;
}

constexpr int kMaxRounds = 8;

}  // namespace

std::optional<TreeEstimate> estimate_tree(const Collective& c, const AlgorithmOptions& opt, LinkGraph& graph,
                                          const StepCost& cost, bool only_if_exact) {
  const TreePlan plan = tree_plan(c, opt);
  const auto n = static_cast<std::size_t>(c.ranks);
  TreeEstimate out;
  out.transfers = tree_transfers(plan, c.ranks);
  out.exact = true;
  if (n < 2) return out;
  const Topology& topo = graph.topology();
  const auto channels = static_cast<std::size_t>(plan.channels);
  const auto slices = static_cast<std::size_t>(plan.slices);
  std::vector<ChannelShape> shapes;
  shapes.reserve(channels);  // edges point into them
  // Every edge's route, both ways, in one array; the edges of the channels that carry
  // bytes keep their offsets into it. When the replay may follow (only_if_exact) they come from the graph's
  // route cache, which the replay reuses; otherwise this is the only use of each, and
  // searching them uncached spares filling the cache (2 x 10^6 routes on a 131,072-rank
  // plan).
  std::vector<LinkId> links;
  std::vector<EdgeFlow> edges;
  auto add = [&](int from, int to, EdgeCosts& costs, std::size_t q, bool loads) {
    const std::size_t begin = links.size();
    if (only_if_exact) {
      const Route& r = graph.route(from, to);
      links.insert(links.end(), r.links.begin(), r.links.end());
    } else {
      graph.append_route(from, to, links);
    }
    costs.latency[q] = plan_latency(std::span<const LinkId>(links).subspan(begin), topo, cost);
    if (loads) {
      edges.push_back({&costs, q, begin, links.size()});
    } else {
      links.resize(begin);
    }
  };
  for (std::size_t ch = 0; ch < channels; ++ch) {
    const RankTree& t = plan.trees[plan.tree_of_channel[ch]];
    const std::vector<std::uint32_t> pos = positions(t);
    ChannelShape& s = shapes.emplace_back(shape_of(t, pos));
    const bool loads = wire_bytes(plan.pass_bytes[ch * slices], cost).count > 0;
    // Edges by rank, not by breadth-first position: neighbouring ranks share hosts and
    // nodes, so their route searches hit memory the previous one brought in (a third of
    // the routes' time on the 131,072-GPU cluster).
    for (int me = 0; me < c.ranks; ++me) {
      const int parent = t.parent(me);
      if (parent < 0) continue;
      const std::size_t q = pos[static_cast<std::size_t>(me)];
      add(me, parent, s.up, q, loads);
      add(parent, me, s.down, q, loads);
    }
  }
  out.exact = solve_rates(topo, edges, links, cost.flow_cap, only_if_exact);
  if (!out.exact && only_if_exact) return std::nullopt;
  // Channels alike in shape and bytes take the same time: each is timed once.
  std::vector<std::size_t> timed;
  for (std::size_t ch = 0; ch < channels; ++ch) {
    const std::span<const Bytes> mine(plan.pass_bytes.data() + ch * slices, slices);
    const bool seen = std::any_of(timed.begin(), timed.end(), [&](std::size_t o) {
      return shapes[o] == shapes[ch] &&
             std::equal(mine.begin(), mine.end(), plan.pass_bytes.begin() + static_cast<std::ptrdiff_t>(o * slices));
    });
    if (seen) continue;
    timed.push_back(ch);
    // Company depends on the times it gives: from none, timed again until it no longer
    // moves (a few rounds).
    Activity in, out2;
    Time d{};
    for (int round = 0; round < kMaxRounds; ++round) {
      d = time_channel(shapes[ch], mine, cost, in, out2);
      if (out2 == in) break;
      std::swap(in, out2);
    }
    out.duration = std::max(out.duration, d);
  }
  return out;
}

}  // namespace collsim
