// The link-events section of a step report (DDP or sharded): the step against the same
// step on healthy links, and each collective the events changed.
#pragma once

#include <ostream>

#include "sim/report/table_model.hpp"
#include "sim/train/eventful_step.hpp"

namespace collsim {

void write_step_events(std::ostream& out, const StepEvents& e, Time iteration);
[[nodiscard]] Json step_events_json(const StepEvents& e);

}  // namespace collsim
