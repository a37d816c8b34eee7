// Writes a topology as a Graphviz graph (Boost.Graph's write_graphviz): one node per
// topology node, labelled with its id and GPU model, one undirected edge per duplex pair
// of links, labelled with kind, lanes and payload rate per direction (GB/s).
#pragma once

#include <ostream>

#include "sim/topo/topology.hpp"

namespace collsim {

void write_dot(std::ostream& out, const Topology& t);

}  // namespace collsim
