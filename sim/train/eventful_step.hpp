// A training step with link events (a scenario whose times run from the step's start):
// each collective costs what it costs when it starts, on the links as the events have left
// them by then and as they change during it. The step is played with healthy costs, each
// collective is priced again at its start, and the step is played again until no start
// moves. The communication stream runs in issue order and no collective waits on compute
// that waits on a later one, so a collective's start depends only on the ones before it:
// N collectives settle in at most N + 1 plays. Times in ps.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sim/coll/link_scenario.hpp"
#include "sim/train/stream_program.hpp"

namespace collsim {

// A collective whose cost the events changed.
struct EventfulCollective {
  std::string name;
  Time start;
  Time healthy, during;
};

struct StepEvents {
  std::string scenario;       // the file
  Time healthy_iteration;     // the same step on healthy links
  int plays = 0;              // plays until the starts settled
  std::size_t collectives = 0;
  std::vector<EventfulCollective> changed;  // in issue order
};

// How to price one collective with link events during it (times from its start).
using PricedDuring = std::function<Time(const std::shared_ptr<const LinkScenario>& seen)>;

class EventfulStep {
 public:
  explicit EventfulStep(std::shared_ptr<const LinkScenario> events) : events_(std::move(events)) {}

  // The cost of the play's next collective (issue order): `healthy` in the first play;
  // afterwards, where it started in the last play, `during` of the events it meets there
  // (`healthy` when it meets none).
  [[nodiscard]] Time cost(Time healthy, const PricedDuring& during);
  // After a play: true when its starts are those its costs were priced at (the step is
  // final), else false and the next play uses them. Throws InternalError past N + 2 plays.
  [[nodiscard]] bool settled(const StreamProgram& p, const StreamTimeline& t);
  // What the events changed, once settled.
  [[nodiscard]] StepEvents summary(const StreamProgram& p, const StreamTimeline& t, Time healthy_iteration) const;

 private:
  std::shared_ptr<const LinkScenario> events_;
  std::size_t next_ = 0;       // the play's next collective
  std::vector<Time> starts_;   // of the last play (empty before the first)
  std::vector<Time> healthy_;  // per collective
  std::vector<Time> used_;     // per collective, in the last play
  std::map<std::pair<std::size_t, std::int64_t>, Time> memo_;  // (k, start) -> cost
  int plays_ = 0;
};

}  // namespace collsim
