#include "sim/coll/nvls_tree_estimate.hpp"

#include <algorithm>
#include <cstdint>
#include <cstddef>
#include <span>
#include <vector>

#include <spdlog/spdlog.h>

#include "sim/algo/nvls_tree.hpp"
#include "sim/coll/flow_plan.hpp"
#include "sim/core/error.hpp"
#include "sim/net/solo_rate.hpp"
#include "sim/net/static_max_min.hpp"

namespace collsim {

namespace {

// A stream's flows, in this order: each host's reduce legs (host h's i-th rank other than
// the block's owner: h * L + i, L = ppn - 1), the up edges of positions 1 .. H - 1 of its
// tree, their down edges, each host's multicast legs (as the reduce legs).
struct StreamLayout {
  std::size_t hosts = 0, local = 0;
  [[nodiscard]] std::size_t legs() const { return hosts * local; }
  [[nodiscard]] std::size_t up(std::size_t k) const { return legs() + k - 1; }
  [[nodiscard]] std::size_t down(std::size_t k) const { return legs() + hosts - 1 + k - 1; }
  [[nodiscard]] std::size_t multicast(std::size_t i) const { return legs() + 2 * (hosts - 1) + i; }
  [[nodiscard]] std::size_t size() const { return 2 * legs() + 2 * (hosts - 1); }
};

// A stream's flow costs: what two streams must share to take the same time.
struct StreamCosts {
  std::vector<Time> latency;
  std::vector<double> rate;   // with every flow in flight
  std::vector<double> alone;  // its solo rate (its cap or narrowest link)
  [[nodiscard]] bool operator==(const StreamCosts&) const = default;
};

// A flow's slices from its first start to its last end (empty: first = max).
struct Span {
  Time first = Time::max();
  Time last{};
  Time busy{};  // the slices' own time within it (their bytes at their rates)
  void add(Time start, Time end) {
    first = std::min(first, start);
    last = std::max(last, end);
    busy += end - start;
  }
  [[nodiscard]] bool during(Time t) const { return first <= t && t < last; }
  // The share of its span it moves bytes in.
  [[nodiscard]] double duty() const {
    return last > first ? std::min(1.0, busy.seconds() / (last - first).seconds()) : 0.0;
  }
  [[nodiscard]] bool operator==(const Span&) const = default;
};

// How busy each link is at a given time, by the spans of the previous timing: the flows
// whose span holds t, each weighted by its duty (the share of its span it moves bytes in),
// so that a flow idle between its slices counts only for the time it sends. Per link, its
// flows' first starts and last ends, each sorted with running sums of the duties: the flows
// started by t less those ended by t.
class LinkActivity {
 public:
  // Marks only on the links flagged in `wanted` (those of flows whose rate company can
  // change); rebuilt in place each round.
  void build(std::span<const std::uint8_t> wanted, std::span<const LinkId> links, std::span<const std::size_t> offsets,
             std::span<const Span> spans) {
    const std::size_t link_count = wanted.size();
    begin_.assign(link_count + 1, 0);
    const std::size_t flows = offsets.size() - 1;
    for (std::size_t f = 0; f < flows; ++f) {
      if (spans[f].first == Time::max()) continue;
      for (std::size_t i = offsets[f]; i < offsets[f + 1]; ++i) begin_[links[i] + 1] += wanted[links[i]];
    }
    for (std::size_t l = 0; l < link_count; ++l) begin_[l + 1] += begin_[l];
    firsts_.resize(begin_.back());
    lasts_.resize(begin_.back());
    at_.assign(begin_.begin(), begin_.end() - 1);
    for (std::size_t f = 0; f < flows; ++f) {
      if (spans[f].first == Time::max()) continue;
      const double duty = spans[f].duty();
      for (std::size_t i = offsets[f]; i < offsets[f + 1]; ++i) {
        if (wanted[links[i]] == 0) continue;
        const std::size_t k = at_[links[i]]++;
        firsts_[k] = Mark{spans[f].first, duty};
        lasts_[k] = Mark{spans[f].last, duty};
      }
    }
    for (std::size_t l = 0; l < link_count; ++l) {
      if (begin_[l + 1] == begin_[l]) continue;
      for (auto* v : {&firsts_, &lasts_}) {
        const auto b = v->begin() + static_cast<std::ptrdiff_t>(begin_[l]);
        const auto e = v->begin() + static_cast<std::ptrdiff_t>(begin_[l + 1]);
        std::sort(b, e, [](const Mark& x, const Mark& y) { return x.at < y.at || (x.at == y.at && x.weight < y.weight); });
        double sum = 0;
        for (auto it = b; it != e; ++it) it->weight = sum += it->weight;  // running sums
      }
    }
  }
  // Where the last query of one flow on one link ended, in the link's first starts and last
  // ends: a flow's slices start later and later, so the next query searches on from there.
  struct Cursor {
    std::uint32_t first = 0, last = 0;
  };
  // The duty-weighted count of flows on l whose span holds t.
  [[nodiscard]] double active(LinkId l, Time t, Cursor& at) const {
    return upto(firsts_, l, t, at.first) - upto(lasts_, l, t, at.last);
  }

 private:
  struct Mark {
    Time at;
    double weight;  // after construction: the running sum up to and with this mark
  };
  // The running sum of `v`'s marks on l at or before t. `from` (relative to the link's
  // first mark) is where the same flow's previous query ended, at an earlier t: the answer
  // lies at or after it, found by doubling steps, then halving, the same mark as a search
  // of the whole link (a later query at an earlier t searches the whole link).
  [[nodiscard]] double upto(const std::vector<Mark>& v, LinkId l, Time t, std::uint32_t& from) const {
    const auto b = v.begin() + static_cast<std::ptrdiff_t>(begin_[l]);
    const auto e = v.begin() + static_cast<std::ptrdiff_t>(begin_[l + 1]);
    auto lo = b + std::min<std::ptrdiff_t>(from, e - b);
    if (lo != b && t < std::prev(lo)->at) lo = b;
    std::ptrdiff_t step = 1;
    auto hi = lo;
    while (hi != e && !(t < hi->at)) {
      lo = hi + 1;
      hi = e - lo > step ? lo + step : e;
      step *= 2;
    }
    const auto it = std::upper_bound(lo, hi, t, [](Time x, const Mark& m) { return x < m.at; });
    from = static_cast<std::uint32_t>(it - b);
    return it == b ? 0.0 : std::prev(it)->weight;
  }
  std::vector<std::size_t> begin_;  // per link, where its marks start (and the end)
  std::vector<std::size_t> at_;     // build's fill positions
  std::vector<Mark> firsts_, lasts_;
};

// A stream's flows' rates at a slice's start: their all-in-flight share at least, their solo
// rate at most, and in between the equal share of each link among the flows active on it
// then (the previous timing's spans, weighted by their duty), the flow itself included.
struct StreamCompany {
  const LinkActivity* activity = nullptr;  // none: every flow at its solo rate
  std::span<const LinkId> links;
  std::span<const std::size_t> offsets;    // the stream's flows' (global offsets)
  std::span<const Span> own;               // the stream's flows' previous spans
  std::span<const double> capacity;
  const std::vector<std::uint8_t>* wanted = nullptr;  // per link: full with every flow in flight
  // Per entry of the stream's routes (offsets[0] onwards), where its last query ended.
  std::span<LinkActivity::Cursor> cursors;

  [[nodiscard]] double rate(std::size_t f, Time t, double both, double alone) const {
    if (activity == nullptr || both >= alone) return alone;
    double r = alone;
    const double self = own[f].during(t) ? own[f].duty() : 0.0;
    for (std::size_t i = offsets[f]; i < offsets[f + 1]; ++i) {
      if ((*wanted)[links[i]] == 0) continue;  // not full with every flow in flight: no flow's bound
      const double others = std::max(0.0, activity->active(links[i], t, cursors[i - offsets[0]]) - self);
      r = std::min(r, capacity[links[i]] / (others + 1));
    }
    return std::max(both, r);
  }
};

// Slice after slice through the schedule's dependencies (nvls_tree.cpp): a reduce leg after
// its own previous slice; an up edge after its host's partial sum, its children's up edges
// and its own previous slice; a down edge after its parent's (the root's children: after
// all the root's inputs) and its own previous slice; a multicast leg after its host's sum
// arrived and its own previous slice. The leg's latency before the first slice only
// (multicasts: none). A slice runs at the rate `company` gives it at its start. Returns
// the last end; `active` gets each flow's span.
Time time_stream(const NvlsTreePlan& plan, int t, std::span<const Bytes> slices, const StreamLayout& lay,
                 const StreamCosts& s, const StreamCompany& company, std::span<Span> active, const StepCost& cost) {
  const std::size_t hosts = lay.hosts, local = lay.local, n = lay.size();
  std::vector<Time> end(n);
  std::vector<Time> partial(hosts), inputs(hosts), full(hosts);
  Time last{};
  // A slice's time at the flow's solo rate, for the slice size last timed: most flows (every
  // capped NVLS leg) have no company to change it.
  std::vector<Time> solo(n);
  std::vector<std::uint8_t> shared(n);
  for (std::size_t f = 0; f < n; ++f) shared[f] = company.activity != nullptr && s.rate[f] < s.alone[f];
  // A host's legs (reduce or multicast) alike, unshared and with one latency and rate, end
  // together slice after slice: the first is timed for all (their spans copied at the end).
  auto alike_legs = [&](std::size_t first_leg) {
    for (std::size_t i = 0; i < local; ++i) {
      const std::size_t f = first_leg + i;
      if (shared[f] != 0 || s.latency[f] != s.latency[first_leg] || s.alone[f] != s.alone[first_leg]) return false;
    }
    return true;
  };
  std::vector<std::uint8_t> reduce_alike(hosts), multicast_alike(hosts);
  for (std::size_t h = 0; h < hosts; ++h) {
    reduce_alike[h] = local > 0 && alike_legs(h * local);
    multicast_alike[h] = local > 0 && alike_legs(lay.multicast(h * local));
  }
  Bytes timed{-1};
  for (std::size_t l = 0; l < slices.size(); ++l) {
    const Bytes wire = wire_bytes(slices[l], cost);
    const auto bytes = static_cast<double>(wire.count);
    if (wire != timed) {
      for (std::size_t f = 0; f < n; ++f) solo[f] = transfer_time(bytes, s.alone[f]);
      timed = wire;
    }
    const bool first = l == 0;
    auto run = [&](std::size_t f, Time ready, bool pays_latency) {
      Time start = std::max(end[f], ready);
      if (first && pays_latency) start = start + s.latency[f];
      end[f] = start + (shared[f] ? transfer_time(bytes, company.rate(f, start, s.rate[f], s.alone[f])) : solo[f]);
      active[f].add(start, end[f]);
      return end[f];
    };
    // 1. Each host's reduce legs onto the block's owner.
    for (std::size_t h = 0; h < hosts; ++h) {
      Time p{};
      const std::size_t legs = reduce_alike[h] ? std::min<std::size_t>(1, local) : local;
      for (std::size_t i = 0; i < legs; ++i) p = std::max(p, run(h * local + i, Time{}, true));
      partial[h] = p;
    }
    // 2. Up the tree's positions (breadth first: children after their parent), then down.
    for (std::size_t k = 0; k < hosts; ++k) inputs[k] = partial[static_cast<std::size_t>(plan.host(t, static_cast<int>(k)))];
    for (std::size_t k = hosts; k-- > 1;) {
      const Time up = run(lay.up(k), inputs[k], true);
      Time& parent = inputs[static_cast<std::size_t>(plan.parent(t, static_cast<int>(k)))];
      parent = std::max(parent, up);
    }
    full[0] = inputs[0];
    for (std::size_t k = 1; k < hosts; ++k) {
      full[k] = run(lay.down(k), full[static_cast<std::size_t>(plan.parent(t, static_cast<int>(k)))], true);
    }
    // 3. Each host's multicast legs of the sum.
    for (std::size_t k = 0; k < hosts; ++k) {
      const auto h = static_cast<std::size_t>(plan.host(t, static_cast<int>(k)));
      const std::size_t legs = multicast_alike[h] ? std::min<std::size_t>(1, local) : local;
      for (std::size_t i = 0; i < legs; ++i) (void)run(lay.multicast(h * local + i), full[k], false);
    }
  }
  for (std::size_t h = 0; h < hosts; ++h) {
    for (std::size_t i = 1; i < local; ++i) {
      if (reduce_alike[h] != 0) {
        end[h * local + i] = end[h * local];
        active[h * local + i] = active[h * local];
      }
      if (multicast_alike[h] != 0) {
        end[lay.multicast(h * local + i)] = end[lay.multicast(h * local)];
        active[lay.multicast(h * local + i)] = active[lay.multicast(h * local)];
      }
    }
  }
  for (Time e : end) last = std::max(last, e);
  return last;
}

// Timings with company after the one without, until the slowest so far has grown by less
// than kSettled in each of kSettledRounds rounds in a row, kMaxSettleRounds at most. The rounds
// climb from the solo bound and then swing by under a per cent: 8 fixed rounds stopped 2-4.5 %
// short at 1 GiB on 1,024 to 131,072 GPUs, where they had settled by rounds 10-13
// (docs/performance.md#nvls-tree-estimate; tests/unit/coll_nvls_tree_estimate_test.cpp).
constexpr int kMaxSettleRounds = 16;
constexpr double kSettled = 0.005;
constexpr int kSettledRounds = 2;

}  // namespace

std::optional<NvlsTreeEstimate> estimate_nvls_tree(const Collective& c, const AlgorithmOptions& opt, LinkGraph& graph,
                                                   const StepCost& cost, bool only_if_exact) {
  return estimate_nvls_tree(c, nvls_tree_plan(c, opt), graph, cost, only_if_exact);
}

std::optional<NvlsTreeEstimate> estimate_nvls_tree(const Collective& c, const NvlsTreePlan& plan, LinkGraph& graph,
                                                   const StepCost& cost, bool only_if_exact) {
  NvlsTreeEstimate out;
  out.transfers = plan.transfers();
  out.exact = true;
  if (out.transfers == 0) return out;
  const Topology& topo = graph.topology();
  const int hosts = plan.hosts();
  const StreamLayout lay{static_cast<std::size_t>(hosts), static_cast<std::size_t>(plan.ppn() - 1)};
  const std::size_t per_stream = lay.size();
  const auto streams = static_cast<std::size_t>(plan.streams());
  // Every flow's route (its leg of it) in one array: flow f is links[offsets[f], offsets[f + 1]).
  std::vector<LinkId> links;
  std::vector<std::size_t> offsets{0};
  offsets.reserve(streams * per_stream + 1);
  std::vector<StreamCosts> costs(streams);
  std::optional<LinkClassTable> classes;
  if (cost.protocol_latency && !cost.uniform_step_latency) classes.emplace(topo);
  std::vector<double> caps;  // per flow, its leg's cap (0: none)
  caps.reserve(streams * per_stream);
  std::vector<LinkId> route;
  // One leg of from -> to's route: all of it, all but its last link (to the switch), or its
  // last link only (from the switch).
  auto add = [&](StreamCosts& s, int from, int to, TransferLeg leg, bool pays_latency) {
    route.clear();
    if (only_if_exact) {
      const Route& r = graph.route(from, to);
      route.assign(r.links.begin(), r.links.end());
    } else {
      graph.append_route(from, to, route);
    }
    std::span<const LinkId> part(route);
    if (leg == TransferLeg::ToSwitch && !part.empty()) part = part.first(part.size() - 1);
    if (leg == TransferLeg::FromSwitch && !part.empty()) part = part.last(1);
    links.insert(links.end(), part.begin(), part.end());
    offsets.push_back(links.size());
    const auto& leg_cap = cost.cap_of(leg);
    caps.push_back(leg_cap ? leg_cap->bytes_per_s : 0.0);
    s.latency.push_back(pays_latency ? plan_latency(part, topo, cost, classes ? &*classes : nullptr) : Time{});
  };
  for (std::size_t q = 0; q < streams; ++q) {
    const auto j = static_cast<std::size_t>(q / 2);
    const int t = static_cast<int>(q % 2);
    StreamCosts& s = costs[q];
    s.latency.reserve(per_stream);
    auto owner_at = [&](int k) { return plan.ranks[static_cast<std::size_t>(plan.host(t, k))][j]; };
    for (const auto& mine : plan.ranks) {
      for (int r : mine) {
        if (r != mine[j]) add(s, r, mine[j], TransferLeg::ToSwitch, true);
      }
    }
    for (int k = 1; k < hosts; ++k) add(s, owner_at(k), owner_at(plan.parent(t, k)), TransferLeg::EndToEnd, true);
    for (int k = 1; k < hosts; ++k) add(s, owner_at(plan.parent(t, k)), owner_at(k), TransferLeg::EndToEnd, true);
    for (const auto& mine : plan.ranks) {
      for (int r : mine) {
        if (r != mine[j]) add(s, mine[j], r, TransferLeg::FromSwitch, false);
      }
    }
  }
  // The steady state: every flow with a link in flight at once; a flow without one (a leg
  // that ends at the switch it starts from) runs at its cap, as the replay's.
  std::vector<double> capacity;
  capacity.reserve(topo.links.size());
  for (const auto& link : topo.links) capacity.push_back(link.bandwidth.bytes_per_s);
  const std::size_t flows = offsets.size() - 1;
  std::vector<std::size_t> linked_offsets;
  std::vector<std::size_t> linked;  // flows with a link, in order
  std::vector<double> linked_caps;
  for (std::size_t f = 0; f < flows; ++f) {
    if (offsets[f + 1] == offsets[f]) continue;
    linked.push_back(f);
    linked_offsets.push_back(offsets[f]);
    linked_caps.push_back(caps[f]);
  }
  linked_offsets.push_back(links.size());
  const RouteTable table{links, linked_offsets};
  const std::vector<double> rates = static_max_min(capacity, table, linked_caps);
  std::vector<double> rate(caps), alone(caps);
  for (std::size_t i = 0; i < linked.size(); ++i) {
    rate[linked[i]] = rates[i];
    alone[linked[i]] = solo_rate(table[i], linked_caps[i], [&](LinkId l) { return capacity[l]; });
    out.exact = out.exact && rates[i] == alone[linked[i]];
  }
  for (std::size_t f = 0; f < flows; ++f) {
    if (!(rate[f] > 0)) throw InternalError("nvls_tree estimate: a flow with bytes needs a route or a rate cap");
  }
  if (!out.exact && only_if_exact) return std::nullopt;
  for (std::size_t q = 0; q < streams; ++q) {
    const auto from = static_cast<std::ptrdiff_t>(q * per_stream), to = static_cast<std::ptrdiff_t>((q + 1) * per_stream);
    costs[q].rate.assign(rate.begin() + from, rate.begin() + to);
    costs[q].alone.assign(alone.begin() + from, alone.begin() + to);
  }
  // Company depends on the times it gives: from none, timed again until it no longer moves
  // (a few rounds). Streams alike (slices, tree, costs, spans) are timed once a round.
  std::vector<Span> span(flows), next(flows);
  std::vector<std::size_t> timed;
  // The links that bound flows below their solo rate: those the all-in-flight rates fill
  // (the others cannot be any flow's share), on the routes of flows whose rate company can
  // change (all-in-flight below solo).
  std::vector<double> load(topo.links.size(), 0.0);
  for (std::size_t f = 0; f < flows; ++f) {
    for (std::size_t i = offsets[f]; i < offsets[f + 1]; ++i) load[links[i]] += rate[f];
  }
  std::vector<std::uint8_t> wanted(topo.links.size(), 0);
  for (std::size_t f = 0; f < flows; ++f) {
    if (!(rate[f] < alone[f])) continue;
    for (std::size_t i = offsets[f]; i < offsets[f + 1]; ++i) {
      if (load[links[i]] >= capacity[links[i]] * (1 - 1e-9)) wanted[links[i]] = 1;
    }
  }
  LinkActivity activity;
  std::vector<LinkActivity::Cursor> cursors;  // the stream being timed's (StreamCompany)
  int round = 0;
  int settled = 0;  // rounds in a row in which the slowest so far grew by less than kSettled
  for (; round < kMaxSettleRounds; ++round) {
    if (round > 0) activity.build(wanted, links, offsets, span);
    auto of = [&](std::vector<Span>& v, std::size_t q) {
      return std::span<Span>(v).subspan(q * per_stream, per_stream);
    };
    std::fill(next.begin(), next.end(), Span{});
    timed.clear();
    Time d{};
    for (std::size_t q = 0; q < streams; ++q) {
      const auto alike = std::find_if(timed.begin(), timed.end(), [&](std::size_t o) {
        const auto a = of(span, o), b = of(span, q);
        return o % 2 == q % 2 && plan.parts[o] == plan.parts[q] && costs[o] == costs[q] &&
               std::equal(a.begin(), a.end(), b.begin(), b.end());
      });
      if (alike != timed.end()) {
        const auto from = of(next, *alike);
        std::copy(from.begin(), from.end(), of(next, q).begin());
        continue;
      }
      timed.push_back(q);
      const auto stream_offsets = std::span<const std::size_t>(offsets).subspan(q * per_stream, per_stream + 1);
      cursors.assign(stream_offsets.back() - stream_offsets.front(), LinkActivity::Cursor{});
      const StreamCompany company{round > 0 ? &activity : nullptr, links, stream_offsets, of(span, q), capacity, &wanted,
                                  cursors};
      d = std::max(d, time_stream(plan, static_cast<int>(q % 2), plan.parts[q], lay, costs[q], company, of(next, q), cost));
    }
    // Round 0 (no company, every flow solo) is a bound from below; the later rounds climb,
    // then swing by under a per cent about the replay's time rather than settle exactly:
    // the slowest is kept.
    const Time before = out.duration;
    out.duration = std::max(out.duration, d);
    settled = round > 0 && (out.duration - before).seconds() < kSettled * before.seconds() ? settled + 1 : 0;
    if (out.exact || next == span || settled == kSettledRounds) {
      ++round;  // the rounds timed
      break;    // exact: every flow at its solo rate, company or not
    }
    std::swap(span, next);
  }
  out.streams_timed = static_cast<int>(timed.size());
  spdlog::debug("nvls_tree estimate of {} B on {} ranks: {} flows, {} of {} streams timed, {} rounds, {}", c.size.count,
                c.ranks, flows, out.streams_timed, streams, round, out.exact ? "exact" : "not exact");
  return out;
}

}  // namespace collsim
