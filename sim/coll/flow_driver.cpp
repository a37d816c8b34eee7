#include "sim/coll/flow_driver.hpp"

namespace collsim {

FlowDriver::FlowDriver(const Topology& topo) {
  for (const auto& link : topo.links) net_.add_link(link.bandwidth);
}

void FlowDriver::add(std::uint32_t owner, const FlowPlan& plan, Time now) {
  if (plan.latency.ps == 0) {
    launch(owner, plan, now);
  } else {
    waiting_.schedule(now + plan.latency, Waiting{owner, plan});
  }
}

void FlowDriver::launch(std::uint32_t owner, const FlowPlan& plan, Time now) {
  const FlowId f = net_.start_flow(now, plan.links, plan.wire, plan.cap);
  if (owner_of_flow_.size() <= f) owner_of_flow_.resize(f + 1);
  owner_of_flow_[f] = owner;
  ++flows_;
}

}  // namespace collsim
