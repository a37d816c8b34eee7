// The SimGrid peer's tree (shared/peers/simgrid): a binary heap tree (children of v are
// 2v+1 and 2v+2, counted from the root), the whole message at once: reduce to the root,
// then broadcast, a node sending to both children at once. All-reduce, reduce, broadcast.
#pragma once

#include "sim/algo/algorithm_info.hpp"
#include "sim/algo/algorithm_options.hpp"
#include "sim/algo/schedule.hpp"

namespace collsim {

[[nodiscard]] Schedule binary_heap_tree(const Collective& c, const AlgorithmOptions& opt = {});

extern const AlgorithmInfo kBinaryTreeAlgorithm;

}  // namespace collsim
