// Max-min fair rates of a fixed set of flows, all in flight together: the allocation
// FlowNetwork converges to, without its machinery for flows that come and go (per-link
// flow lists, components, finish times). For one snapshot of millions of flows (every edge
// of a 131,072-rank tree) it needs a few arrays over the links the flows use.
#pragma once

#include <cstddef>
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

// Routes kept as one array of links, each route a range of it: route i is
// links[offsets[i], offsets[i + 1]). A view of every `stride`-th route from `first`, so that
// millions of routes need no span each (16 bytes a route).
struct RouteTable {
  std::span<const LinkId> links;
  std::span<const std::size_t> offsets;  // one more than the routes
  std::size_t first = 0, stride = 1;

  [[nodiscard]] std::size_t size() const {
    const std::size_t all = offsets.empty() ? 0 : offsets.size() - 1;
    return all > first ? (all - first + stride - 1) / stride : 0;
  }
  [[nodiscard]] std::span<const LinkId> operator[](std::size_t f) const {
    const std::size_t i = first + f * stride;
    return links.subspan(offsets[i], offsets[i + 1] - offsets[i]);
  }
};

// The same for routes in a table.
[[nodiscard]] std::vector<double> static_max_min(std::span<const double> capacity, const RouteTable& routes, double cap);
// The same with each flow's own bound: caps[f] (0: none), one per route.
[[nodiscard]] std::vector<double> static_max_min(std::span<const double> capacity, const RouteTable& routes,
                                                 std::span<const double> caps);

}  // namespace collsim
