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
  // The links in use, numbered densely, with their flows (CSR).
  constexpr std::uint32_t kUnused = std::numeric_limits<std::uint32_t>::max();
  std::vector<std::uint32_t> local(capacity.size(), kUnused);
  std::vector<LinkId> used;
  std::vector<std::uint32_t> begin;
  for (std::size_t f = 0; f < routes.size(); ++f) {
    const std::span<const LinkId> route = routes[f];
    if (route.empty()) throw InternalError("static_max_min: a flow with no link");
    for (LinkId l : route) {
      if (l >= capacity.size()) throw InternalError("static_max_min: a route names an unknown link");
      if (local[l] == kUnused) {
        local[l] = static_cast<std::uint32_t>(used.size());
        used.push_back(l);
        begin.push_back(0);
      }
      ++begin[local[l]];
    }
  }
  const std::size_t links = used.size();
  std::vector<std::uint32_t> unfrozen(begin);  // flows per link still rising
  begin.push_back(0);
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i <= links; ++i) sum += std::exchange(begin[i], static_cast<std::uint32_t>(sum));
  // Offsets and flow numbers are 32-bit: checked, not wrapped.
  if (sum > std::numeric_limits<std::uint32_t>::max() || routes.size() > std::numeric_limits<std::uint32_t>::max()) {
    throw LimitError("static_max_min: more than 2^32 flow-link pairs");
  }
  std::vector<std::uint32_t> flows_of(sum), fill(begin.begin(), begin.end() - 1);
  for (std::size_t f = 0; f < routes.size(); ++f) {
    for (LinkId l : routes[f]) flows_of[fill[local[l]]++] = static_cast<std::uint32_t>(f);
  }
  std::vector<double> remaining(links);
  for (std::size_t i = 0; i < links; ++i) remaining[i] = capacity[used[i]];
  std::vector<double> rate(routes.size(), -1.0);  // -1: still rising
  std::size_t rising = routes.size();
  std::vector<std::uint32_t> saturating;
  constexpr double kRelTol = 1e-12;
  while (rising > 0) {
    double level = cap > 0 ? cap : std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < links; ++i) {
      if (unfrozen[i] > 0) level = std::min(level, remaining[i] / unfrozen[i]);
    }
    if (!(level < std::numeric_limits<double>::infinity())) throw InternalError("static_max_min found no bottleneck");
    const double threshold = level * (1.0 + kRelTol);
    // Every flow of a link at the level freezes (all of them when the cap is the level),
    // decided before any is subtracted so that each sees the same shares.
    saturating.clear();
    const bool capped = cap > 0 && cap <= threshold;
    for (std::size_t i = 0; i < links; ++i) {
      if (unfrozen[i] > 0 && (capped || remaining[i] / unfrozen[i] <= threshold)) {
        saturating.push_back(static_cast<std::uint32_t>(i));
      }
    }
    for (std::uint32_t i : saturating) {
      for (std::uint32_t k = begin[i]; k < begin[i + 1]; ++k) {
        const std::uint32_t f = flows_of[k];
        if (rate[f] >= 0) continue;
        rate[f] = level;
        --rising;
        for (LinkId l : routes[f]) {
          const std::uint32_t j = local[l];
          remaining[j] = std::max(0.0, remaining[j] - level);
          --unfrozen[j];
        }
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
