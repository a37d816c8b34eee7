// How a topology's ranks are numbered: GPUs in the order stated, GPUs by host then local
// index, or the hosts themselves (CPU-only clusters such as the TCP test bed).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/name_table.hpp"
#include "sim/topo/topology.hpp"

namespace collsim {

enum class RankOrder : std::uint8_t { Gpus, GpusByHost, Hosts };
template <>
inline constexpr auto kEnumNames<RankOrder> = names_in_order<RankOrder>({"gpus", "gpus_by_host", "hosts"});

// The rank nodes under `order`: GPUs in node order; GPUs sorted by their host's node
// index then their order within the host (GPUs without a host come last, in node order);
// or every host node. May be empty.
[[nodiscard]] std::vector<NodeIndex> ranks_in_order(const Topology& t, RankOrder order);

}  // namespace collsim
