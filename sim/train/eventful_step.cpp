#include "sim/train/eventful_step.hpp"

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace collsim {

Time EventfulStep::cost(Time healthy, const PricedDuring& during) {
  const std::size_t k = next_++;
  if (healthy_.size() <= k) healthy_.resize(k + 1);
  if (used_.size() <= k) used_.resize(k + 1);
  healthy_[k] = healthy;
  Time c = healthy;
  if (k < starts_.size()) {
    const auto key = std::make_pair(k, starts_[k].ps);
    auto it = memo_.find(key);
    if (it == memo_.end()) {
      LinkScenario seen = seen_from(*events_, starts_[k], starts_[k] + healthy);
      const Time t = seen.events.empty() ? healthy : during(std::make_shared<const LinkScenario>(std::move(seen)));
      it = memo_.emplace(key, t).first;
    }
    c = it->second;
  }
  used_[k] = c;
  return c;
}

bool EventfulStep::settled(const StreamProgram& p, const StreamTimeline& t) {
  ++plays_;
  next_ = 0;
  std::vector<Time> starts;
  starts.reserve(t.comm.size());
  for (const auto& c : t.comm) starts.push_back(c.start);
  if (plays_ > 1 && starts == starts_) return true;
  if (plays_ > static_cast<int>(p.comm.size()) + 2) {
    throw InternalError(fmt::format("a step with link events did not settle in {} plays ({} collectives)", plays_,
                                    p.comm.size()));
  }
  starts_ = std::move(starts);
  return false;
}

StepEvents EventfulStep::summary(const StreamProgram& p, const StreamTimeline& t, Time healthy_iteration) const {
  StepEvents s;
  s.healthy_iteration = healthy_iteration;
  s.plays = plays_;
  s.collectives = p.comm.size();
  for (std::size_t k = 0; k < p.comm.size() && k < used_.size(); ++k) {
    if (used_[k] != healthy_[k]) s.changed.push_back({p.comm[k].name, t.comm[k].start, healthy_[k], used_[k]});
  }
  return s;
}

}  // namespace collsim
