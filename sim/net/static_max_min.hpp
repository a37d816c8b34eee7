// Max-min fair rates of a fixed set of flows, all in flight together: the allocation
// FlowNetwork converges to, without its machinery for flows that come and go (per-link
// flow lists, components, finish times). For one snapshot of millions of flows (every edge
// of a 131,072-rank tree) it needs a few arrays over the links the flows use.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sim/topo/link_id.hpp"

namespace collsim {

// capacity[l] in bytes/s (positive); routes[f] the links of flow f (non-empty, each below
// capacity.size()); cap: every flow's rate bound (0: none). Returns each flow's rate.
// Progressive filling, one level per distinct bottleneck share (levels equal within a
// relative 1e-12 are one, as in FlowNetwork).
[[nodiscard]] std::vector<double> static_max_min(std::span<const double> capacity,
                                                 std::span<const std::span<const LinkId>> routes, double cap);

}  // namespace collsim
