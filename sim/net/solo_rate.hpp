// The rate a flow gets alone on the network: its cap (0: none) or its narrowest link,
// whichever is lower. No flow ever runs faster. One rule for the flow network and the
// one-shot max-min solve.
#pragma once

#include <algorithm>
#include <limits>
#include <span>

#include "sim/topo/link_id.hpp"

namespace collsim {

template <typename CapacityOf>
[[nodiscard]] double solo_rate(std::span<const LinkId> route, double cap, CapacityOf&& capacity_of) {
  double rate = cap > 0 ? cap : std::numeric_limits<double>::infinity();
  for (LinkId l : route) rate = std::min(rate, capacity_of(l));
  return rate;
}

}  // namespace collsim
