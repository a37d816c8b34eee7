// The fast path: plays a PhasedSchedule by solving one step of each phase on the flow
// network and multiplying by the phase's repeat count. That equals the full flow-level
// replay exactly when every step is uniform (all its flows, started together, end at the
// same instant): then every rank starts the next step at the same time, and each step
// of a phase repeats the same flows on the same links. The player checks that condition
// on the step it solves and reports `exact = false` (with the reason) when it fails.
#pragma once

#include <cstdint>
#include <string>

#include "sim/algo/phased_schedule.hpp"
#include "sim/coll/schedule_player.hpp"
#include "sim/topo/link_graph.hpp"

namespace collsim {

struct PhasedResult {
  bool exact = false;
  Time duration;
  std::string reason;          // why it is not exact, when it is not
  std::uint64_t flows_solved = 0;
};

[[nodiscard]] PhasedResult play_phased(const PhasedSchedule& schedule, LinkGraph& graph,
                                       const PlayOptions& options = {});

}  // namespace collsim
