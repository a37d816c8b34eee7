// Reads the explicit form of a topology, a "nodes" array and a "links" array (bandwidths
// per lane in bytes/s with units, latencies with units), at any JSON pointer of a file:
// the top level of a topology file, or an explicit server inside a cluster generator.
// Errors are recorded in `diags`. Units as in topology.hpp.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "sim/topo/diagnostics.hpp"
#include "sim/topo/topology.hpp"

namespace collsim {

using NodeIdMap = std::unordered_map<std::string, NodeIndex>;

// The node a JSON value names; records an error and returns nullopt when it names none.
[[nodiscard]] std::optional<NodeIndex> lookup_node(const NodeIdMap& ids, const nlohmann::json& v,
                                                   const std::string& source, const std::string& pointer,
                                                   Diagnostics& diags);

// Appends the nodes of `nodes` (`pointer` + "/nodes/i") to an empty `t`, filling `ids`.
// A node that fails still takes its index (kind gpu, no id) so later indices stay aligned.
void read_nodes(const nlohmann::json& nodes, const std::string& source, const std::string& pointer, Topology& t,
                NodeIdMap& ids, Diagnostics& diags);

// Appends the links of `links` (`pointer` + "/links/i"), both directions unless "duplex"
// is false.
void read_links(const nlohmann::json& links, const std::string& source, const std::string& pointer, Topology& t,
                const NodeIdMap& ids, Diagnostics& diags);

}  // namespace collsim
