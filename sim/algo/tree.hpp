// NCCL's double binary tree all-reduce: the ranks of each host form a chain under the
// host's first rank (or, with per-channel orders, under the channel's first rank on that
// host), and the hosts form two complementary binary trees; channel c uses tree c mod 2,
// so each tree carries half the data. Every channel's piece is pipelined in slices that
// reduce up and broadcast down concurrently.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "sim/algo/algorithm_info.hpp"
#include "sim/algo/algorithm_options.hpp"
#include "sim/algo/schedule.hpp"
#include "sim/algo/tree_passes.hpp"

namespace collsim {

// What the built schedule, its computed twin and the steady-state estimate share: the
// channel count, slices per channel, the trees, which tree each channel runs, and each
// pass's (channel x slice) bytes.
struct TreePlan {
  int channels = 2;
  int slices = 1;
  std::vector<RankTree> trees;
  std::vector<std::size_t> tree_of_channel;
  std::vector<Bytes> pass_bytes;  // [channel * slices + slice]
};
[[nodiscard]] TreePlan tree_plan(const Collective& c, const AlgorithmOptions& opt);
// How many transfers double_binary_tree_allreduce has, without building anything, and
// for a plan already built: 2 (ranks - 1) per pass (channel x slice).
[[nodiscard]] std::uint64_t tree_transfers(const Collective& c, const AlgorithmOptions& opt);
[[nodiscard]] std::uint64_t tree_transfers(const TreePlan& plan, int ranks);

[[nodiscard]] Schedule double_binary_tree_allreduce(const Collective& c, const AlgorithmOptions& opt = {});

// The same schedule computed on demand (GeneratedSchedule), or null for a tree whose ranks
// have more children than that form holds.
[[nodiscard]] std::unique_ptr<GeneratedSchedule> generated_tree(const Collective& c, const AlgorithmOptions& opt);
extern const AlgorithmInfo kTreeAlgorithm;

// The rank-level parents of tree `which` (0 or 1) for the host grouping in `opt`.
[[nodiscard]] std::vector<int> double_binary_tree_parents(int ranks, const AlgorithmOptions& opt, int which);

}  // namespace collsim
