// The flow-level network model: directed links of fixed capacity (bytes/s) and flows
// (bytes over a route of links) that share every link max-min fairly, each optionally
// capped. Time is int64 ps; remaining bytes and rates are doubles.
//
// The model answers SimGrid's two questions: "when does the next flow finish?"
// (next_completion) and "advance to t" (complete_until). Rates are recomputed lazily,
// only for the connected component of flows whose links changed since the last query.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include "sim/core/time_buckets.hpp"
#include "sim/core/units.hpp"
#include "sim/net/solo_rate.hpp"
#include "sim/topo/link_id.hpp"

namespace collsim {

using FlowId = std::uint32_t;

class FlowNetwork {
 public:
  LinkId add_link(Bandwidth capacity);
  void reserve_links(std::size_t n) { links_.reserve(n); }
  [[nodiscard]] std::size_t link_count() const { return links_.size(); }
  [[nodiscard]] Bandwidth capacity(LinkId l) const { return Bandwidth{links_[l].capacity}; }

  // Starts a flow at `now` (>= the model's current time). An empty route or zero bytes
  // completes at `now`. `cap` bounds the flow's rate (e.g. a protocol's efficiency).
  // The route is not copied: its storage must outlive the flow (routes come from the
  // LinkGraph's cache, which never moves them).
  FlowId start_flow(Time now, std::span<const LinkId> route, Bytes bytes, std::optional<Bandwidth> cap = {});

  // Earliest completion among active flows (recomputes dirty rates first).
  [[nodiscard]] std::optional<Time> next_completion();

  // Moves the model to `t`, which must not pass next_completion(), and appends to
  // `done` every flow that finishes exactly at t (in a deterministic order: the order
  // in which their final rates were set).
  void complete_until(Time t, std::vector<FlowId>& done);

  // Link events (a degraded or restored link): the link's capacity from now on; rates of
  // the flows crossing it are solved again at the next query. `capacity` must be positive.
  void set_capacity(LinkId l, Bandwidth capacity);
  // The active flows crossing `l`, in the order they joined it.
  [[nodiscard]] std::vector<FlowId> flows_on(LinkId l) const { return links_[l].flows; }
  // Moves an active flow's remaining bytes onto `route` (a failed link's flows); the same
  // storage rule as start_flow. Its rate is solved again at the next query.
  void reroute(FlowId f, std::span<const LinkId> route);

  // Back to time 0 with no flow, as freshly built (flow ids are handed out again from 0,
  // in the same order), keeping the links: only when no flow is active.
  void rewind();

  [[nodiscard]] Time now() const { return now_; }
  [[nodiscard]] std::size_t active_flows() const { return active_; }

  // What decides an active flow's future once rates are solved: bytes left at
  // last_update, rate, and the finish time they give.
  struct FlowView {
    double remaining;
    double rate;
    Time last_update;
    Time finish;
  };
  // Calls visit(id, view) for every active flow, by id. Rates must be solved (call
  // next_completion() first).
  template <typename Visit>
  void for_each_active(Visit&& visit) const {
    for (FlowId f = 0; f < flows_.size(); ++f) {
      const Flow& x = flows_[f];
      if (x.active) visit(f, FlowView{x.remaining, x.rate, x.last_update, x.finish});
    }
  }
  // Moves the clock and every active flow `d` later, rates and bytes unchanged (a replay
  // skipping periods that repeat exactly). Rates must be solved.
  void shift(Time d);
  // Current rate of an active flow in bytes/s (after pending recomputation).
  [[nodiscard]] double rate(FlowId f);
  [[nodiscard]] std::uint64_t rate_solves() const { return solves_; }
  // The rate a flow over `route` with `cap` (0: none) gets alone: its cap or its narrowest
  // link. No flow ever runs faster.
  [[nodiscard]] double solo_rate(std::span<const LinkId> route, double cap) const {
    return collsim::solo_rate(route, cap, [this](LinkId l) { return links_[l].capacity; });
  }

 private:
  static constexpr double kLooseMargin = 1e-9;  // see "Loose links" in flow_network.cpp
  // Caps are summed in whole bytes/s in 64 bits: exact (modulo 2^64, which adding and
  // removing the same caps respects) while a link carries fewer than 2^24 flows of at most
  // 2^40 B/s. Faster caps count as uncapped; a link with more flows counts as tight.
  static constexpr double kMaxExactCap = 1099511627776.0;  // 2^40 B/s
  static constexpr std::size_t kMaxExactFlows = std::size_t{1} << 24;

  struct Link {
    double capacity = 0;
    std::vector<FlowId> flows;  // active flows crossing this link
    // Sum of the caps of its flows (each rounded up to a whole byte/s, so the sum is exact)
    // and how many are uncapped. A link whose flows all fit at their caps, with a margin,
    // is loose: it never limits a flow, so it joins no component (see resolve()).
    std::uint64_t cap_sum = 0;
    std::uint32_t uncapped = 0;
    // Flows still listed that left in the current batch of completions (removed together
    // at its end: an incast's many completions cost one pass, not one shift each).
    std::uint32_t leaving = 0;
    bool tight = false;
    bool dirty = false;
    std::uint64_t mark = 0;     // component-search stamp
  };
  struct Flow {
    std::span<const LinkId> route;
    double remaining = 0;    // bytes left at last_update
    double rate = 0;         // bytes/s
    double cap = 0;          // 0 = uncapped
    Time last_update{};
    Time finish = Time::max();
    std::uint64_t cap_units = 0;  // cap in whole bytes/s, rounded up (0: uncapped)
    std::uint32_t version = 0;
    std::uint64_t mark = 0;
    bool active = false;
  };
  struct Pending {  // its finish time is its bucket's
    FlowId flow;
    std::uint32_t version;
  };

  void mark_dirty(LinkId l) {
    if (!links_[l].dirty) {
      links_[l].dirty = true;
      dirty_links_.push_back(l);
    }
  }
  // Adds or removes a flow's cap on its links and marks the links whose flows need their
  // rates solved again (tight ones, and ones that turned loose).
  inline void join_links(FlowId id);  // defined (and only used) in flow_network.cpp
  // `batch`: the flow is already inactive, and flows that are not last on a link stay
  // listed until complete_until removes them all in one pass per link.
  inline void leave_links(FlowId id, bool batch);
  static void update_tight(Link& link) {
    link.tight = link.uncapped > 0 || link.flows.size() >= kMaxExactFlows ||
                 static_cast<double>(link.cap_sum) * (1.0 + kLooseMargin) > link.capacity;
  }
  // Solves the component of flow `seed` (or of link `seed_link`), joined through tight links.
  void solve_from(FlowId seed);
  void solve_from_link(LinkId seed);
  void collect_component();
  void resolve();
  void solve_component(std::vector<FlowId>& flows, std::vector<LinkId>& links);
  void set_rate(FlowId f, double rate);
  void compact_pending();  // drops the heap's superseded entries
  FlowId allocate_flow() {
    if (free_flows_.empty()) {
      flows_.emplace_back();
      return static_cast<FlowId>(flows_.size() - 1);
    }
    const FlowId f = free_flows_.back();
    free_flows_.pop_back();
    return f;
  }

  std::vector<Link> links_;
  std::vector<Flow> flows_;
  std::vector<FlowId> free_flows_;
  std::vector<FlowId> released_;
  std::vector<LinkId> dirty_links_;
  std::vector<LinkId> leaving_links_;  // links with flows left in the current completion batch
  std::vector<FlowId> new_flows_;  // started or rerouted since the last resolve
  // Finish times, one bucket per distinct picosecond (many flows end at the same one);
  // entries of superseded rates are skipped when popped, and dropped in place when they
  // pile up (compact_pending). complete_until sorts the flows of one instant by id, so
  // completions come out in a fixed order.
  TimeBuckets<Pending> pending_;
  void push_pending(Time finish, Pending p) { pending_.push(finish, p); }
  void pop_pending() { pending_.pop_front(); }
  Time now_{};
  std::size_t active_ = 0;
  std::uint64_t stamp_ = 0;
  std::uint64_t solves_ = 0;
  // Scratch buffers reused across solves.
  std::vector<double> link_remaining_;
  std::vector<std::uint32_t> link_unfrozen_;
  std::vector<FlowId> comp_flows_, unfrozen_, still_;
  std::vector<LinkId> comp_links_, stack_;
  std::vector<double> new_rate_;
  std::vector<std::uint32_t> slot_of_;  // flow id -> index in the component being solved
};

}  // namespace collsim
