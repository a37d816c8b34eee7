// A schedule's shape: its steps (dependency levels: a transfer's level is one more than
// its deepest dependency's; joins add none), transfers and bytes per step, and bytes each
// rank sends and receives.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/algo/schedule.hpp"

namespace collsim {

struct StepStats {
  std::size_t transfers = 0;
  Bytes bytes;
};

struct ScheduleStats {
  std::vector<std::uint32_t> level;  // per transfer, 1-based (0 for a join with no deps)
  std::vector<StepStats> steps;      // index = level - 1
  std::vector<Bytes> sent, received; // per rank
  std::size_t transfers = 0;         // excluding joins
  Bytes total;
};

[[nodiscard]] ScheduleStats schedule_stats(const Schedule& s);

}  // namespace collsim
