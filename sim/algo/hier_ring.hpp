// Hierarchical ring all-reduce (two-level, "one ring per rail"): a ring reduce-scatter
// inside each host leaves local rank i with shard i of the host's sum; local ranks i of all
// hosts then ring-all-reduce shard i across hosts (one ring per rail); a ring all-gather
// inside each host spreads the shards. Needs the same number of ranks on every host.
#pragma once

#include "sim/algo/algorithm_info.hpp"
#include "sim/algo/algorithm_options.hpp"
#include "sim/algo/schedule.hpp"

namespace collsim {

[[nodiscard]] Schedule hierarchical_ring_allreduce(const Collective& c, const AlgorithmOptions& opt = {});

extern const AlgorithmInfo kHierarchicalRingAlgorithm;

}  // namespace collsim
