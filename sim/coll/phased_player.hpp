// The fast path: plays a PhasedSchedule phase by phase. Phases are separated by
// barriers (hierarchical ring) or continue one another's pattern (the ring's two halves
// are one phase), and within a phase every step repeats the same transfers, a rank
// starting step k+1 once it has sent and received step k. For each phase one step is
// solved on the flow network (all its flows started together), then:
//  - if no link carries transfers of two different (src, dst, channel) groups, or every
//    link that does has room for all its flows at their solo rates (each flow's cap or
//    narrowest link), every group's duration is independent of timing, and the phase's
//    end follows exactly from the max-plus recurrence T(k+1, g) = max(T(k, into src g),
//    T(k, from src g)) + d(g) within each channel (a phased step's Transfer::chunk names
//    the channel when the channels run different rings), whose value is repeats x the
//    slowest group's step (every group waits for itself; see recurrence() in the .cpp);
//  - else if all flows of the step end together, steps stay in lock-step: R x D;
//  - else the phase is replayed transfer by transfer, streamed step by step (memory
//    follows the transfers in flight, not the phase's size). Contention usually settles
//    into a cycle: when the replay's whole state recurs (relative to transfer 0's step
//    and the clock), the repeats up to near the phase's end are skipped at once, exactly
//    (PeriodFinder in the .cpp).
#pragma once

#include <cstdint>

#include "sim/algo/phased_schedule.hpp"
#include "sim/coll/schedule_player.hpp"
#include "sim/topo/link_graph.hpp"

namespace collsim {

struct PhasedResult {
  Time duration;
  std::uint64_t flows_solved = 0;   // flows actually simulated (one step per phase, plus replays)
  std::uint64_t phases_replayed = 0;
  std::uint64_t steps_skipped = 0;   // repeats of replayed phases skipped as exact cycles
};

// `options` carries the protocol's costs; link events and rank arrival times are the full
// replay's (an InternalError here).
[[nodiscard]] PhasedResult play_phased(const PhasedSchedule& schedule, LinkGraph& graph,
                                       const PlayOptions& options = {});

}  // namespace collsim
