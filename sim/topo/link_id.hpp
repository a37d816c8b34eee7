// The index of a directed link: a position in Topology::links, the same number the flow
// model (sim/net) gives the link when it is added, and the element of every route. No unit.
#pragma once

#include <cstdint>

namespace collsim {

using LinkId = std::uint32_t;

}  // namespace collsim
