// Loads a topology from JSON (a file, or text with a source name) and validates it:
// unknown keys, bad units, dangling link endpoints, ranks that cannot reach each other.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "sim/topo/topology.hpp"

namespace collsim {

[[nodiscard]] Topology load_topology_file(const std::string& path);
[[nodiscard]] Topology load_topology_json(const nlohmann::json& doc, const std::string& source);

}  // namespace collsim
