#include "sim/coll/flow_plan.hpp"

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace collsim {

Time plan_latency(std::span<const LinkId> links, const Topology& topo, const StepCost& cost,
                  const LinkClassTable* classes) {
  // NCCL's per-step latency covers the wire.
  if (cost.protocol_latency) {
    if (cost.uniform_step_latency) return *cost.uniform_step_latency;
    const LinkClass c = classes ? classes->route_class(links) : route_class(topo, links);
    return cost.step_latency[static_cast<std::size_t>(c)];
  }
  Time sum{};
  for (LinkId l : links) sum += topo.links[l].latency;
  return sum;
}

FlowPlan plan_flow(const Transfer& t, LinkGraph& graph, const StepCost& cost) {
  return plan_flow(t, graph.route(t.src, t.dst), graph.topology(), cost);
}

FlowPlan plan_flow(const Transfer& t, const Route& r, const Topology& topo, const StepCost& cost) {
  FlowPlan plan;
  plan.links = r.links;
  // In-network reduction: a contribution goes up to the switch (every link but the
  // last), the switch multicasts the result down (the last link only).
  if (t.leg == TransferLeg::ToSwitch && !plan.links.empty()) plan.links = plan.links.first(plan.links.size() - 1);
  if (t.leg == TransferLeg::FromSwitch && !plan.links.empty()) plan.links = plan.links.last(1);
  if (t.leg == TransferLeg::Span) {
    if (t.span_end > plan.links.size()) {
      throw InternalError(fmt::format("transfer {} -> {} loads links [{}, {}) of a route of {}", t.src, t.dst, t.span_begin,
                                      t.span_end, plan.links.size()));
    }
    plan.links = plan.links.subspan(t.span_begin, static_cast<std::size_t>(t.span_end - t.span_begin));
  }
  // A later pipelined slice streams behind the slice that paid the step's latency.
  if (!t.pipelined) plan.latency = plan_latency(plan.links, topo, cost);
  plan.wire = wire_bytes(t.bytes, cost);
  plan.cap = cost.cap_of(t.leg);
  return plan;
}

}  // namespace collsim
