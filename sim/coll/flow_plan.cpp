#include "sim/coll/flow_plan.hpp"

#include <cmath>

namespace collsim {

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
  if (t.pipelined) {
    // A later pipelined slice streams behind the slice that paid the step's latency.
  } else if (cost.protocol_latency) {
    // NCCL's per-step latency covers the wire.
    plan.latency = cost.step_latency[static_cast<std::size_t>(route_class(topo, plan.links))];
  } else {
    for (LinkId l : plan.links) plan.latency += topo.links[l].latency;
  }
  plan.wire = t.bytes;
  if (cost.wire_inflation != 1.0) {
    plan.wire.count = static_cast<std::int64_t>(std::ceil(static_cast<double>(t.bytes.count) * cost.wire_inflation));
  }
  plan.cap = cost.flow_cap;
  return plan;
}

}  // namespace collsim
