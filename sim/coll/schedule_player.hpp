// Plays a Schedule on a topology: each transfer starts when all its dependencies have
// finished, pays its route's latency, then moves its bytes as a flow that shares links
// max-min fairly with every other flow in flight. Times are int64 ps.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/algo/schedule.hpp"
#include "sim/topo/link_graph.hpp"

namespace collsim {

struct TransferTiming {
  Time start;  // dependencies met
  Time end;    // last byte delivered
};

struct PlayOptions {
  bool record_timings = false;
};

struct PlayResult {
  Time duration;                        // last transfer's end (0 for an empty schedule)
  std::vector<TransferTiming> timings;  // per transfer, when record_timings
  std::uint64_t flows = 0;
};

[[nodiscard]] PlayResult play_schedule(const Schedule& schedule, LinkGraph& graph, const PlayOptions& options = {});

}  // namespace collsim
