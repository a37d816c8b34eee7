// Drives planned flows through time: each waits its latency (ps), then moves its wire
// bytes on a FlowNetwork built from the topology's links. Owners are plain ids (a
// transfer, a step slot). Flows due at the same instant all start before the network
// re-solves its rates, so an incast of N flows is solved once, not N times. Shared by
// the full replay and the fast path so both drive flows identically. With a link
// scenario (link_scenario.hpp, full replay only) its events are applied at their times:
// after the flows that end at that instant, before the flows that start at it.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <span>
#include <vector>

#include "sim/coll/flow_plan.hpp"
#include "sim/coll/link_scenario.hpp"
#include "sim/core/event_queue.hpp"
#include "sim/net/flow_network.hpp"
#include "sim/topo/topology.hpp"

namespace collsim {

class FlowDriver {
 public:
  explicit FlowDriver(const Topology& topo, const LinkScenario* scenario = nullptr);

  // Starts `owner`'s flow at `from` (the current time `now`, or later): after
  // plan.latency its bytes flow.
  void add(std::uint32_t owner, const FlowPlan& plan, Time now, Time from) {
    if (plan.latency.ps == 0 && from == now) {
      launch(owner, plan, now);
    } else {
      waiting_.emplace(from + plan.latency, owner, plan);
    }
  }
  void add(std::uint32_t owner, const FlowPlan& plan, Time now) { add(owner, plan, now, now); }

  // Runs until nothing is in flight, calling on_done(owner, t) as each flow ends (the
  // callback may add() more flows) and at_rest(t) once every event of instant t is done
  // and the rates are solved. at_rest returns whether it moved the clock (shift()).
  template <typename OnDone, typename AtRest>
  void run(OnDone&& on_done, AtRest&& at_rest) {
    std::vector<FlowId> done;
    Time instant{};            // of the last completion or launch handled,
    bool rest_due = false;     // until at_rest has seen it
    while (true) {
      const auto tq = waiting_.next_time();
      const auto tn = net_.next_completion();
      if (!tq && !tn) break;  // events after the last flow change nothing
      if (rest_due && (!tq || *tq > instant) && (!tn || *tn > instant)) {
        rest_due = false;
        if (at_rest(instant)) continue;
      }
      const auto te = next_event_time();
      if (te && (!tn || *te < *tn) && (!tq || *te <= *tq)) {
        apply_events_at(*te);
      } else if (tn && (!tq || *tn <= *tq)) {
        done.clear();
        net_.complete_until(*tn, done);
        waiting_.advance_to(*tn);
        instant = *tn;
        rest_due = true;
        for (FlowId f : done) on_done(owner_of_flow_[f], *tn);
      } else {
        const Time at = *tq;
        instant = at;
        rest_due = true;
        do {
          const Waiting w = waiting_.pop();
          launch(w.owner, w.plan, at);
        } while (waiting_.next_time() == at);
      }
    }
  }
  template <typename OnDone>
  void run(OnDone&& on_done) {
    run(on_done, [](Time) { return false; });
  }

  // Calls on_waiting(owner, due) for each flow still in its latency (due: when its bytes
  // start) and on_flowing(owner, view) for each moving its bytes. From at_rest only
  // (rates solved).
  template <typename OnWaiting, typename OnFlowing>
  void for_each_in_flight(OnWaiting&& on_waiting, OnFlowing&& on_flowing) const {
    waiting_.for_each([&](Time due, const Waiting& w) { on_waiting(w.owner, due); });
    net_.for_each_active([&](FlowId f, const FlowNetwork::FlowView& v) { on_flowing(owner_of_flow_[f], v); });
  }
  // The rate `plan`'s flow gets alone on the network (FlowNetwork::solo_rate).
  [[nodiscard]] double solo_rate(const FlowPlan& plan) const {
    return net_.solo_rate(plan.links, plan.cap ? plan.cap->bytes_per_s : 0.0);
  }
  // Moves the clock and everything in flight `d` later. From at_rest only; not with a
  // link scenario.
  void shift(Time d);

  // Back to time 0 with nothing in flight, as freshly built (the links are kept: a
  // network of a big fabric's links costs more to build than many plays on it). Not with
  // a link scenario.
  void rewind();

  [[nodiscard]] std::uint64_t flows_started() const { return flows_; }

 private:
  struct Waiting {
    // A constructor, for emplace: emscripten's clang has no parenthesised aggregate init.
    Waiting(std::uint32_t o, const FlowPlan& p) : owner(o), plan(p) {}
    std::uint32_t owner;
    FlowPlan plan;
  };
  void launch(std::uint32_t owner, const FlowPlan& plan, Time now) {
    // A flow that starts after a failure takes a detour from the start (its latency is
    // the planned route's).
    const std::span<const LinkId> route = last_fail_ ? usable(plan.links, *last_fail_) : plan.links;
    const FlowId f = net_.start_flow(now, route, plan.wire, plan.cap);
    if (owner_of_flow_.size() <= f) {
      owner_of_flow_.resize(f + 1);
      route_of_flow_.resize(f + 1);
    }
    owner_of_flow_[f] = owner;
    route_of_flow_[f] = route;
    ++flows_;
  }
  [[nodiscard]] std::optional<Time> next_event_time() const;
  void apply_events_at(Time t);
  // `route`, or a detour around the failed links between its two ends (stored in detours_).
  [[nodiscard]] std::span<const LinkId> usable(std::span<const LinkId> route, const LinkEvent& why);

  const Topology& topo_;
  const LinkScenario* scenario_ = nullptr;
  std::size_t next_event_ = 0;
  const LinkEvent* last_fail_ = nullptr;   // the failure the current detours answer
  std::vector<bool> failed_;              // per link, while a scenario has it failed
  std::deque<std::vector<LinkId>> detours_;  // stable storage of the routes flows were moved to
  // The detour between two nodes under the current failures (many transfers share a pair);
  // emptied whenever a link fails or comes back.
  std::map<std::pair<NodeIndex, NodeIndex>, std::span<const LinkId>> detour_of_;
  std::vector<std::span<const LinkId>> route_of_flow_;
  FlowNetwork net_;
  BasicEventQueue<Waiting> waiting_;
  std::vector<std::uint32_t> owner_of_flow_;
  std::uint64_t flows_ = 0;
};

}  // namespace collsim
