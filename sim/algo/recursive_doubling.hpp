// Recursive-doubling all-reduce: log2 p steps, in step k participant q exchanges its whole
// (partially reduced) buffer with q XOR 2^k and both reduce; non-powers of two fold first
// (see power_of_two_fold.hpp). Latency-optimal: log2 p steps of S bytes each.
#pragma once

#include "sim/algo/algorithm_info.hpp"
#include "sim/algo/algorithm_options.hpp"
#include "sim/algo/schedule.hpp"

namespace collsim {

[[nodiscard]] Schedule recursive_doubling_allreduce(const Collective& c, const AlgorithmOptions& opt = {});

extern const AlgorithmInfo kRecursiveDoublingAlgorithm;

}  // namespace collsim
