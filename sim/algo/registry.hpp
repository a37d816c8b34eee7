// Every algorithm collsim knows, as its AlgorithmInfo (sim/algo/algorithm_info.hpp), in the
// order --help lists them; lookups by name, and the one entry point that builds a schedule.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/algo/algorithm_info.hpp"
#include "sim/algo/algorithm_options.hpp"
#include "sim/algo/schedule.hpp"

namespace collsim {

[[nodiscard]] std::span<const AlgorithmInfo* const> algorithms();
// nullptr for an unknown name (names are exact: lower case).
[[nodiscard]] const AlgorithmInfo* find_algorithm(std::string_view name);
// The algorithm a command runs when none is named, and "auto" off NCCL's GPUs: the ring.
[[nodiscard]] std::string_view default_algorithm();

[[nodiscard]] std::vector<std::string> algorithm_names();
[[nodiscard]] bool is_algorithm(std::string_view name);
// Whether `algo` implements `op` (false for unknown names).
[[nodiscard]] bool supports(std::string_view algo, CollectiveOp op);
// Whether `algo` needs ranks grouped by host with the same count on each (hier_ring).
[[nodiscard]] bool needs_even_hosts(std::string_view algo);
// The NCCL algorithm `algo` reproduces (None for unknown names).
[[nodiscard]] NcclAlgorithm nccl_counterpart(std::string_view algo);

// Throws std::invalid_argument when the algorithm is unknown, does not implement the
// collective's operation, or cannot run with these options.
[[nodiscard]] Schedule build_schedule(std::string_view algo, const Collective& c, const AlgorithmOptions& opt = {});
// The same schedule computed on demand (generated_schedule.hpp), or nullptr when the
// algorithm or these options have no such form. Throws as build_schedule does.
[[nodiscard]] std::unique_ptr<GeneratedSchedule> generated_schedule(std::string_view algo, const Collective& c,
                                                                    const AlgorithmOptions& opt = {});

}  // namespace collsim
