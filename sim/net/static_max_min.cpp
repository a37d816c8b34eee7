#include "sim/net/static_max_min.hpp"

#include <algorithm>
#include <limits>
#include <utility>

#include "sim/core/error.hpp"

namespace collsim {

namespace {

// Routes: size() and operator[] giving flow f's links.
template <class Routes>
std::vector<double> solve(std::span<const double> capacity, const Routes& routes, double cap) {
  // Per link, by id: flows still rising on it and capacity left; the links in use, once each.
  // Each level walks the rising flows' routes, not a per-link list of flows: a third of the
  // memory on 10^6 flows, and the same rates (every flow frozen at a level subtracts the same
  // level from its links, so the order they are frozen in changes nothing).
  if (routes.size() > std::numeric_limits<std::uint32_t>::max()) {
    throw LimitError("static_max_min: more than 2^32 flows");
  }
  std::vector<std::uint32_t> unfrozen(capacity.size(), 0);
  std::vector<LinkId> used;
  for (std::size_t f = 0; f < routes.size(); ++f) {
    const std::span<const LinkId> route = routes[f];
    if (route.empty()) throw InternalError("static_max_min: a flow with no link");
    for (LinkId l : route) {
      if (l >= capacity.size()) throw InternalError("static_max_min: a route names an unknown link");
      if (unfrozen[l]++ == 0) used.push_back(l);
    }
  }
  std::vector<double> remaining(capacity.begin(), capacity.end());
  std::vector<std::uint8_t> saturated(capacity.size(), 0);
  std::vector<double> rate(routes.size(), -1.0);  // -1: still rising
  std::size_t rising = routes.size();
  constexpr double kRelTol = 1e-12;
  while (rising > 0) {
    double level = cap > 0 ? cap : std::numeric_limits<double>::infinity();
    for (LinkId l : used) {
      if (unfrozen[l] > 0) level = std::min(level, remaining[l] / unfrozen[l]);
    }
    if (!(level < std::numeric_limits<double>::infinity())) throw InternalError("static_max_min found no bottleneck");
    const double threshold = level * (1.0 + kRelTol);
    // Every flow of a link at the level freezes (all of them when the cap is the level),
    // decided before any is subtracted so that each sees the same shares.
    const bool capped = cap > 0 && cap <= threshold;
    for (LinkId l : used) saturated[l] = unfrozen[l] > 0 && (capped || remaining[l] / unfrozen[l] <= threshold);
    for (std::size_t f = 0; f < routes.size(); ++f) {
      if (rate[f] >= 0) continue;
      const std::span<const LinkId> route = routes[f];
      if (std::none_of(route.begin(), route.end(), [&](LinkId l) { return saturated[l] != 0; })) continue;
      rate[f] = level;
      --rising;
      for (LinkId l : route) {
        remaining[l] = std::max(0.0, remaining[l] - level);
        --unfrozen[l];
      }
    }
  }
  return rate;
}

}  // namespace

std::vector<double> static_max_min(std::span<const double> capacity, std::span<const std::span<const LinkId>> routes,
                                   double cap) {
  return solve(capacity, routes, cap);
}

std::vector<double> static_max_min(std::span<const double> capacity, const RouteTable& routes, double cap) {
  return solve(capacity, routes, cap);
}

}  // namespace collsim
