// NCCL's NVLSTree all-reduce (sim/algo/nvls_tree.hpp) timed without replaying its
// transfers one by one, as tree_estimate.hpp times the double binary tree.
//
// Every flow of the schedule's pipeline (each stream's NVLS reduce legs, its tree's edges
// up and down, its multicast legs) is put in flight at once on a flow network of the
// topology's links and its max-min rates solved: the pipeline's steady state. The slices
// are then timed through the schedule's dependencies at those rates, as the replay charges
// them: the leg's latency before a stream's first slice (none for multicasts, which stream
// behind the reduce), then its wire bytes at the rate.
//
// When every flow gets its solo rate (its cap or its narrowest link) with all of them in
// flight, no subset of them can slow one down, and the estimate is the replay's own time
// (`exact`). Otherwise a slice is charged, at its start, each of its links' equal share
// among the flows active on the link then (between their first start and last end in the
// previous timing; timed again until that no longer moves), within its all-in-flight and
// its solo rate. Measured against the replay: -0.1 % to +3.4 % on test rails
// (tests/unit/coll_nvls_tree_estimate_test.cpp), -0.1 % to +2.3 % on 1,024 H100s of a
// rail-optimised IB and a RoCE fat-tree fabric at 25 MiB - 1 GiB (docs/performance.md).
//
// Streams whose flows have the same slices, rates, latencies and spans are taken to take the
// same time and timed once: on a rail-optimised cluster the blocks of different local GPUs
// do.
#pragma once

#include <cstdint>
#include <optional>

#include "sim/algo/algorithm_options.hpp"
#include "sim/algo/collective.hpp"
#include "sim/algo/nvls_tree.hpp"
#include "sim/coll/schedule_player.hpp"
#include "sim/topo/link_graph.hpp"

namespace collsim {

struct NvlsTreeEstimate {
  Time duration;
  bool exact = false;           // every flow ran at its solo rate: the replay's own time
  std::uint64_t transfers = 0;  // the replay's transfer count
  int streams_timed = 0;        // streams timed (the others took the time of one alike)
};

// Null when `only_if_exact` and the estimate is not the replay's time (known after one rate
// solve, before any timing).
[[nodiscard]] std::optional<NvlsTreeEstimate> estimate_nvls_tree(const Collective& c, const AlgorithmOptions& opt,
                                                                 LinkGraph& graph, const StepCost& cost,
                                                                 bool only_if_exact);
// The same on c's plan (nvls_tree_plan), for a caller that sized the replay from it.
[[nodiscard]] std::optional<NvlsTreeEstimate> estimate_nvls_tree(const Collective& c, const NvlsTreePlan& plan,
                                                                 LinkGraph& graph, const StepCost& cost,
                                                                 bool only_if_exact);

}  // namespace collsim
