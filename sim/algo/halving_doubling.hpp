// Rabenseifner's all-reduce: reduce-scatter by recursive halving (log2 p steps, partner at
// distance p/2, p/4, ..., 1, each sending the half it does not keep), then all-gather by
// recursive doubling (distances 1, 2, ..., p/2); non-powers of two fold first (see
// power_of_two_fold.hpp). On a non-blocking fabric: 2 log2 p steps, 2(p-1)/p S bytes.
#pragma once

#include "sim/algo/algorithm_info.hpp"
#include "sim/algo/algorithm_options.hpp"
#include "sim/algo/schedule.hpp"

namespace collsim {

[[nodiscard]] Schedule halving_doubling_allreduce(const Collective& c, const AlgorithmOptions& opt = {});

extern const AlgorithmInfo kHalvingDoublingAlgorithm;

}  // namespace collsim
