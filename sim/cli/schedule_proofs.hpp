// The schedules an elastic run rebuilds over a new membership, proved by the symbolic
// executor (as `collsim schedule --verify`): for each collective a step ran, the algorithm
// the job's collective costs chose for it, built over the membership's ranks.
#pragma once

#include <utility>
#include <vector>

#include "sim/coll/collective_cost.hpp"
#include "sim/topo/topology.hpp"
#include "sim/train/elastic.hpp"

namespace collsim::cli {

// One proof per (operation, algorithm) among `collectives` (operation, bytes), in order; a
// schedule that fails the proof is a bug: InternalError (exit 1).
[[nodiscard]] std::vector<ScheduleProof> prove_schedules(const Topology& topo, CollectiveCostCache& cache,
                                                         const std::vector<std::pair<CollectiveOp, Bytes>>& collectives);

}  // namespace collsim::cli
