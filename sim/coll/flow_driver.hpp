// Drives planned flows through time: each waits its latency (ps), then moves its wire
// bytes on a FlowNetwork built from the topology's links. Owners are plain ids (a
// transfer, a step slot). Flows due at the same instant all start before the network
// re-solves its rates, so an incast of N flows is solved once, not N times. Shared by
// the full replay and the fast path so both drive flows identically.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/coll/flow_plan.hpp"
#include "sim/core/event_queue.hpp"
#include "sim/net/flow_network.hpp"
#include "sim/topo/topology.hpp"

namespace collsim {

class FlowDriver {
 public:
  explicit FlowDriver(const Topology& topo);

  // Starts `owner`'s flow at `now`: after plan.latency its bytes flow.
  void add(std::uint32_t owner, const FlowPlan& plan, Time now);

  // Runs until nothing is in flight, calling on_done(owner, t) as each flow ends; the
  // callback may add() more flows.
  template <typename OnDone>
  void run(OnDone&& on_done) {
    std::vector<FlowId> done;
    while (true) {
      const auto tq = waiting_.next_time();
      const auto tn = net_.next_completion();
      if (!tq && !tn) break;
      if (tn && (!tq || *tn <= *tq)) {
        done.clear();
        net_.complete_until(*tn, done);
        waiting_.advance_to(*tn);
        for (FlowId f : done) on_done(owner_of_flow_[f], *tn);
      } else {
        const Time at = *tq;
        do {
          const Waiting w = waiting_.pop();
          launch(w.owner, w.plan, at);
        } while (waiting_.next_time() == at);
      }
    }
  }

  [[nodiscard]] std::uint64_t flows_started() const { return flows_; }

 private:
  struct Waiting {
    std::uint32_t owner;
    FlowPlan plan;
  };
  void launch(std::uint32_t owner, const FlowPlan& plan, Time now);

  FlowNetwork net_;
  BasicEventQueue<Waiting> waiting_;
  std::vector<std::uint32_t> owner_of_flow_;
  std::uint64_t flows_ = 0;
};

}  // namespace collsim
