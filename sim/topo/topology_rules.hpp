// Rules a loaded topology must satisfy beyond its syntax: link kinds that fit their
// endpoints, a GPU's own NIC inside the GPU's host, and every rank able to reach every
// other. Errors are recorded in `diags` with the node's JSON pointer. No units.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/topo/diagnostics.hpp"
#include "sim/topo/topology.hpp"

namespace collsim {

// nullopt when a link of kind `k` may join nodes of kinds `a` and `b`; otherwise what is
// expected. NVLink and NVSwitch links join GPUs and NVSwitches; ib, roce and ethernet join
// NICs, network switches and hosts; PCIe never touches an NVSwitch or a network switch.
[[nodiscard]] std::optional<std::string> link_endpoint_rule(LinkKind k, NodeKind a, NodeKind b);

void check_topology_rules(const Topology& t, Diagnostics& diags);

// The pairs (anchor, rank) or else (rank, anchor), for each rank in order, between which
// LinkGraph::node_route would find no route: what check_topology_rules reports for the
// first rank, found by reachability (about the links once), not by a route search per rank.
[[nodiscard]] std::vector<std::pair<NodeIndex, NodeIndex>> pairs_without_route(const Topology& t, NodeIndex anchor);

}  // namespace collsim
