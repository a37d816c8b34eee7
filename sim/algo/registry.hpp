// Names of the algorithm modules, which collectives each implements, and the one entry
// point that builds a schedule.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sim/algo/algorithm_options.hpp"
#include "sim/algo/schedule.hpp"

namespace collsim {

[[nodiscard]] std::vector<std::string> algorithm_names();
[[nodiscard]] bool is_algorithm(std::string_view name);
// Whether `algo` implements `op` (false for unknown names).
[[nodiscard]] bool supports(std::string_view algo, CollectiveOp op);
// Whether `algo` needs ranks grouped by host with the same count on each (hier_ring).
[[nodiscard]] bool needs_even_hosts(std::string_view algo);

// Throws std::invalid_argument when the algorithm is unknown, does not implement the
// collective's operation, or cannot run with these options.
[[nodiscard]] Schedule build_schedule(std::string_view algo, const Collective& c, const AlgorithmOptions& opt = {});

}  // namespace collsim
