// NCCL's double binary tree all-reduce: the ranks of each host form a chain under the
// host's first rank (or, with per-channel orders, under the channel's first rank on that
// host), and the hosts form two complementary binary trees; channel c uses tree c mod 2,
// so each tree carries half the data. Every channel's piece is pipelined in slices that
// reduce up and broadcast down concurrently.
#pragma once

#include <memory>

#include "sim/algo/algorithm_info.hpp"
#include "sim/algo/algorithm_options.hpp"
#include "sim/algo/schedule.hpp"

namespace collsim {

[[nodiscard]] Schedule double_binary_tree_allreduce(const Collective& c, const AlgorithmOptions& opt = {});

// The same schedule computed on demand (GeneratedSchedule), or null for a tree whose ranks
// have more children than that form holds.
[[nodiscard]] std::unique_ptr<GeneratedSchedule> generated_tree(const Collective& c, const AlgorithmOptions& opt);
extern const AlgorithmInfo kTreeAlgorithm;

// The rank-level parents of tree `which` (0 or 1) for the host grouping in `opt`.
[[nodiscard]] std::vector<int> double_binary_tree_parents(int ranks, const AlgorithmOptions& opt, int which);

}  // namespace collsim
