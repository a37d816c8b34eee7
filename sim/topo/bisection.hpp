// Bisection bandwidth of a topology: the maximum flow (bytes/s, one direction) from the
// first half of the ranks to the second half over the links' payload rates, passing only
// through switch-like nodes (never through a GPU or host that is not a rank of either half).
#pragma once

#include "sim/core/units.hpp"
#include "sim/topo/topology.hpp"

namespace collsim {

// Ranks 0 .. n/2-1 send, ranks n/2 .. n-1 receive (Boost push-relabel max flow). Zero
// for fewer than two ranks.
[[nodiscard]] Bandwidth bisection_bandwidth(const Topology& t);

}  // namespace collsim
