// Names of the algorithm modules and the one entry point that builds a schedule.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sim/algo/schedule.hpp"

namespace collsim {

struct AlgorithmOptions {
  std::vector<int> ring_order;  // empty: ranks in topology order
};

[[nodiscard]] std::vector<std::string> algorithm_names();
[[nodiscard]] bool is_algorithm(std::string_view name);
// Whether `algo` implements `op` (false for unknown names).
[[nodiscard]] bool supports(std::string_view algo, CollectiveOp op);

// Throws std::invalid_argument when the algorithm is unknown or does not implement
// the collective's operation.
[[nodiscard]] Schedule build_schedule(std::string_view algo, const Collective& c, const AlgorithmOptions& opt = {});

}  // namespace collsim
