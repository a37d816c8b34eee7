// A schedule described by its steps instead of its transfers: each phase is one step's
// transfers, repeated in lock-step. Regular algorithms (ring, hierarchical ring) have this
// form; it lets the engine solve a step once instead of replaying millions of transfers.
// Bytes per transfer are the largest chunk the full schedule moves in that step.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/algo/algorithm_options.hpp"
#include "sim/algo/schedule.hpp"

namespace collsim {

struct SchedulePhase {
  std::string name;
  std::vector<Transfer> step;  // the transfers of one step (src/dst/bytes; chunk: the channel, 0 when all alike)
  std::int64_t repeats = 0;    // how many such steps follow one another
};

struct PhasedSchedule {
  Collective collective;
  std::string algorithm;
  std::vector<SchedulePhase> phases;

  [[nodiscard]] std::uint64_t transfers() const;  // as many as the full schedule moves, merged per step
};

// The phased form of `algo` for `c` (its AlgorithmInfo's phased builder), or nullopt when
// the algorithm or its options (e.g. pipelined slices) have none.
[[nodiscard]] std::optional<PhasedSchedule> phased_schedule(std::string_view algo, const Collective& c,
                                                            const AlgorithmOptions& opt);

// The phased forms there are: the ring (all-reduce, reduce-scatter, all-gather) and the
// hierarchical ring all-reduce.
[[nodiscard]] std::optional<PhasedSchedule> phased_ring(const Collective& c, const AlgorithmOptions& opt);
[[nodiscard]] std::optional<PhasedSchedule> phased_hier_ring_allreduce(const Collective& c, const AlgorithmOptions& opt);

}  // namespace collsim
