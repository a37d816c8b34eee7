// Loads a topology from JSON (a file, or text with a source name) and validates it:
// unknown keys, bad units, unknown GPU models, dangling references, links whose kind does
// not fit their endpoints, ranks that cannot reach each other. check_* collect every
// error; load_* throw the first.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/topo/diagnostics.hpp"
#include "sim/topo/topology.hpp"

namespace collsim {

struct TopologyCheck {
  std::optional<Topology> topology;  // set when there are no errors
  Diagnostics errors;                // every error found, in file order
};

[[nodiscard]] TopologyCheck check_topology_file(const std::string& path);
[[nodiscard]] TopologyCheck check_topology_json(const nlohmann::json& doc, const std::string& source);

[[nodiscard]] Topology load_topology_file(const std::string& path);
[[nodiscard]] Topology load_topology_json(const nlohmann::json& doc, const std::string& source);

}  // namespace collsim
