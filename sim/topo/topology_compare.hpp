// Whether two topologies describe the same machine up to node ids: the same nodes by kind,
// GPU model and NIC plugin latency, the same links (kinds of endpoints, kind, lanes, payload and line rate,
// latency, MTU), the same structure and the same ranks. Structure is compared by colour
// refinement (1-dimensional Weisfeiler-Leman): every node is labelled by its kind, then
// repeatedly by its label and the multiset of (link, neighbour label) around it, its host
// and its own NIC, both topologies sharing one label table; equal labelled multisets
// mean equal up to ids for every tree-like or switch-centred system collsim generates.
// Rates compare to 9 significant digits (text round trips), times exactly (ps).
#pragma once

#include <string>
#include <vector>

#include "sim/topo/topology.hpp"

namespace collsim {

// Every difference found, each a sentence naming what `a` and `b` have; empty when equal.
[[nodiscard]] std::vector<std::string> topology_differences(const Topology& a, const Topology& b);

}  // namespace collsim
