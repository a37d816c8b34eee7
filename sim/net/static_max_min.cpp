#include "sim/net/static_max_min.hpp"

#include <algorithm>
#include <limits>
#include <type_traits>
#include <utility>

#include "sim/core/error.hpp"

namespace collsim {

namespace {

// Every flow's rate bound, the same for all (0: none).
struct SameCap {
  double cap;
  [[nodiscard]] double operator()(std::size_t) const { return cap; }
};
// Each flow's own (0: none).
struct OwnCaps {
  std::span<const double> caps;
  [[nodiscard]] double operator()(std::size_t f) const { return caps[f]; }
};

// Routes: size() and operator[] giving flow f's links; Caps: SameCap or OwnCaps.
template <class Routes, class Caps>
std::vector<double> solve(std::span<const double> capacity, const Routes& routes, const Caps& cap_of) {
  constexpr bool same = std::is_same_v<Caps, SameCap>;
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
  auto bound = [](double cap) { return cap > 0 ? cap : std::numeric_limits<double>::infinity(); };
  while (rising > 0) {
    double level = std::numeric_limits<double>::infinity();
    if constexpr (same) {
      level = bound(cap_of(0));
    } else {
      for (std::size_t f = 0; f < routes.size(); ++f) {
        if (rate[f] < 0) level = std::min(level, bound(cap_of(f)));
      }
    }
    for (LinkId l : used) {
      if (unfrozen[l] > 0) level = std::min(level, remaining[l] / unfrozen[l]);
    }
    if (!(level < std::numeric_limits<double>::infinity())) throw InternalError("static_max_min found no bottleneck");
    const double threshold = level * (1.0 + kRelTol);
    // Every flow of a link at the level freezes, and every flow whose cap is the level (all
    // of them when the cap is everyone's), decided before any is subtracted so that each
    // sees the same shares.
    const bool all_capped = same && bound(cap_of(0)) <= threshold;
    for (LinkId l : used) saturated[l] = unfrozen[l] > 0 && (all_capped || remaining[l] / unfrozen[l] <= threshold);
    for (std::size_t f = 0; f < routes.size(); ++f) {
      if (rate[f] >= 0) continue;
      const std::span<const LinkId> route = routes[f];
      const bool capped = !same && bound(cap_of(f)) <= threshold;
      if (!capped && std::none_of(route.begin(), route.end(), [&](LinkId l) { return saturated[l] != 0; })) continue;
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
  return solve(capacity, routes, SameCap{cap});
}

std::vector<double> static_max_min(std::span<const double> capacity, const RouteTable& routes, double cap) {
  return solve(capacity, routes, SameCap{cap});
}

std::vector<double> static_max_min(std::span<const double> capacity, const RouteTable& routes,
                                   std::span<const double> caps) {
  if (caps.size() != routes.size()) throw InternalError("static_max_min: one cap per flow");
  return solve(capacity, routes, OwnCaps{caps});
}

}  // namespace collsim
