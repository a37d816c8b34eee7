#include "sim/coll/phased_player.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "sim/coll/flow_plan.hpp"
#include "sim/core/event_queue.hpp"
#include "sim/net/flow_network.hpp"

namespace collsim {

namespace {

struct StepTiming {
  Time first_end = Time::max();
  Time last_end{};
};

// All transfers of one step start at 0: each waits its route's latency, then flows.
StepTiming play_step(const std::vector<Transfer>& step, LinkGraph& graph, const StepCost& cost) {
  FlowNetwork net;
  for (const auto& link : graph.topology().links) net.add_link(link.bandwidth);
  BasicEventQueue<FlowPlan> latency_done;
  StepTiming timing;
  auto note_end = [&timing](Time t) {
    timing.first_end = std::min(timing.first_end, t);
    timing.last_end = std::max(timing.last_end, t);
  };
  auto launch = [&](const FlowPlan& plan, Time now) { (void)net.start_flow(now, plan.links, plan.wire, plan.cap); };
  for (const Transfer& t : step) {
    const FlowPlan plan = plan_flow(t, graph, cost);
    if (plan.latency.ps == 0) {
      launch(plan, Time{0});
    } else {
      latency_done.schedule(plan.latency, plan);
    }
  }
  std::vector<FlowId> done;
  while (true) {
    const auto tq = latency_done.next_time();
    const auto tn = net.next_completion();
    if (!tq && !tn) break;
    if (tn && (!tq || *tn <= *tq)) {
      done.clear();
      net.complete_until(*tn, done);
      latency_done.advance_to(*tn);
      for (std::size_t i = 0; i < done.size(); ++i) note_end(*tn);
    } else {
      const Time at = *tq;
      do {
        launch(latency_done.pop(), at);
      } while (latency_done.next_time() == at);
    }
  }
  return timing;
}

}  // namespace

PhasedResult play_phased(const PhasedSchedule& s, LinkGraph& graph, const PlayOptions& options) {
  PhasedResult result;
  result.exact = true;
  for (const SchedulePhase& phase : s.phases) {
    if (phase.step.empty() || phase.repeats == 0) continue;
    const StepTiming t = play_step(phase.step, graph, options.cost);
    result.flows_solved += phase.step.size();
    // Uniform: every flow of the step ends together (2 ps of rounding slack, or 1e-9 of
    // the step for very long steps).
    const std::int64_t spread = t.last_end.ps - t.first_end.ps;
    const std::int64_t slack = std::max<std::int64_t>(2, t.last_end.ps / 1'000'000'000);
    if (spread > slack) {
      result.exact = false;
      result.reason = fmt::format("phase \"{}\": its flows end {} ps apart, so steps do not stay in lock-step",
                                  phase.name, spread);
      return result;
    }
    result.duration += t.last_end * phase.repeats;
  }
  return result;
}

}  // namespace collsim
