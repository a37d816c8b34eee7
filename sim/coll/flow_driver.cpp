#include "sim/coll/flow_driver.hpp"

#include <algorithm>

namespace collsim {

FlowDriver::FlowDriver(const Topology& topo, const LinkScenario* scenario)
    : topo_(topo), scenario_(scenario && !scenario->events.empty() ? scenario : nullptr) {
  net_.reserve_links(topo.links.size());
  for (const auto& link : topo.links) net_.add_link(link.bandwidth);
  if (scenario_) failed_.assign(topo.links.size(), false);
}

void FlowDriver::rewind() {
  if (scenario_) throw InternalError("FlowDriver::rewind under a link scenario");
  net_.rewind();
  waiting_.rewind();
}

void FlowDriver::shift(Time d) {
  if (scenario_) throw InternalError("FlowDriver::shift under a link scenario");
  net_.shift(d);
  waiting_.shift(d);
}

std::optional<Time> FlowDriver::next_event_time() const {
  if (!scenario_ || next_event_ >= scenario_->events.size()) return std::nullopt;
  return scenario_->events[next_event_].at;
}

std::span<const LinkId> FlowDriver::usable(std::span<const LinkId> route, const LinkEvent& why) {
  if (std::none_of(route.begin(), route.end(), [&](LinkId l) { return failed_[l]; })) return route;
  const NodeIndex from = topo_.links[route.front()].from;
  const NodeIndex to = topo_.links[route.back()].to;
  const auto [known, added] = detour_of_.try_emplace({from, to});
  if (added) {
    std::vector<LinkId> detour = route_avoiding(topo_, from, to, failed_);
    if (detour.empty()) throw_cut_off(topo_, *scenario_, why, from, to, failed_);
    detours_.push_back(std::move(detour));
    known->second = detours_.back();
  }
  return known->second;
}

void FlowDriver::apply_events_at(Time t) {
  std::vector<FlowId> done;
  net_.complete_until(t, done);  // nothing ends before t: the caller checked
  waiting_.advance_to(t);
  std::vector<LinkId> newly_failed;
  const LinkEvent* fail = nullptr;
  while (next_event_ < scenario_->events.size() && scenario_->events[next_event_].at == t) {
    const LinkEvent& e = scenario_->events[next_event_++];
    for (LinkId l : e.links) {
      switch (e.action) {
        case LinkAction::Degrade:
          net_.set_capacity(l, e.bandwidth);
          break;
        case LinkAction::Restore:
          if (failed_[l]) detour_of_.clear();
          failed_[l] = false;
          net_.set_capacity(l, topo_.links[l].bandwidth);
          break;
        case LinkAction::Fail:
          if (!failed_[l]) {
            newly_failed.push_back(l);
            detour_of_.clear();
          }
          failed_[l] = true;
          fail = &e;
          break;
      }
    }
  }
  if (fail) last_fail_ = fail;
  if (std::none_of(failed_.begin(), failed_.end(), [](bool b) { return b; })) last_fail_ = nullptr;
  // Flows on a link that failed now move to detours around every failed link.
  for (LinkId l : newly_failed) {
    for (FlowId f : net_.flows_on(l)) {
      const std::span<const LinkId> route = usable(route_of_flow_[f], *last_fail_);
      net_.reroute(f, route);
      route_of_flow_[f] = route;
    }
  }
}

}  // namespace collsim
