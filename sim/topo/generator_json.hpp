// Reads a `generator` block of a topology file (star, nvswitch_node, one server kind,
// cluster = N servers on a fabric, tcp_cluster) and runs the generator. Every bad field is
// recorded in `diags`; nullopt when any was. Units as in the generator headers.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/topo/diagnostics.hpp"
#include "sim/topo/topology.hpp"

namespace collsim {

[[nodiscard]] std::optional<Topology> read_generator(const nlohmann::json& block, const std::string& source,
                                                     const std::string& pointer, Diagnostics& diags);

// The names accepted as a generator's "kind".
[[nodiscard]] std::vector<std::string> generator_kind_names();

}  // namespace collsim
