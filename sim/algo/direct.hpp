// Direct algorithms: every rank exchanges with every rank at once, one step per phase.
// all-to-all (block i->j of S/N bytes), all-gather (each rank sends its block to all),
// reduce-scatter (each rank sends block j to rank j), all-reduce (reduce-scatter then
// all-gather), broadcast (root sends S to all), reduce (all send S to the root).
// Suits switch fabrics where N-1 concurrent flows share a rank's link fairly.
#pragma once

#include "sim/algo/algorithm_info.hpp"
#include "sim/algo/algorithm_options.hpp"
#include "sim/algo/schedule.hpp"

namespace collsim {

[[nodiscard]] Schedule direct_schedule(const Collective& c, const AlgorithmOptions& opt = {});

extern const AlgorithmInfo kDirectAlgorithm;

}  // namespace collsim
