// NCCL's double binary tree timed without replaying its transfers one by one.
//
// Every edge of every channel's tree (up and down) is put in flight at once on a flow
// network of the topology's links and its max-min rate solved: the pipeline's steady
// state, where each edge carries some slice. The slices are then timed through the tree's
// dependencies (the DAG of double_binary_tree_allreduce) at those rates, as the replay
// charges them: the route's latency before a channel's first slice, then its wire bytes
// at the rate.
//
// When every edge gets its solo rate (its cap or its narrowest link) with all of them in
// flight, no subset of them can slow one down, so the replay would run every transfer at
// that rate: the estimate is then the replay's time to the picosecond (`exact`). Otherwise
// edges that share a link are charged their all-in-flight share for the whole collective,
// which the replay gives them only while the pipeline is full: the estimate is then a
// bound from above on the pipeline's rates, not the replay's time.
//
// A channel's tree is timed up to its symmetries: positions whose paths from the root pass
// alike subtrees (same shape and costs) get the same times in every round, so one of each
// is timed (the 131,072-GPU cluster's tree keeps 1,048 positions). Channels alike up to the order of
// siblings are timed once. Both leave the result unchanged to the picosecond.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "sim/algo/algorithm_options.hpp"
#include "sim/algo/collective.hpp"
#include "sim/coll/schedule_player.hpp"
#include "sim/topo/link_graph.hpp"

namespace collsim {

struct TreeEstimate {
  Time duration;
  bool exact = false;           // every edge ran at its solo rate: the replay's own time
  std::uint64_t transfers = 0;  // the replay's transfer count
  std::uint64_t timed = 0;      // positions timed per round, over the channels timed
};

// Null when `only_if_exact` and the estimate is not the replay's time (known after one
// rate solve, before any timing). `by_symmetry`: time each channel's tree up to its
// symmetries, and once for channels alike up to them (the same result; off for tests).
[[nodiscard]] std::optional<TreeEstimate> estimate_tree(const Collective& c, const AlgorithmOptions& opt,
                                                        LinkGraph& graph, const StepCost& cost, bool only_if_exact,
                                                        bool by_symmetry = true);

// Concurrent trees: each group's on its own ranks, all in flight on the same links (their
// rates solved together), each timed as above; the estimate is the slowest's end.
// `job_rank`: the group's ranks in `graph`'s job, c.ranks of them (empty: the job's own).
struct TreeGroup {
  const AlgorithmOptions* options;
  std::span<const int> job_rank;
};
[[nodiscard]] std::optional<TreeEstimate> estimate_trees(const Collective& c, std::span<const TreeGroup> groups,
                                                         LinkGraph& graph, const StepCost& cost, bool only_if_exact,
                                                         bool by_symmetry = true);

}  // namespace collsim
