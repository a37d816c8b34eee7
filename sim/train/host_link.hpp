// The path between a GPU and its host's memory (PCIe, through switches and the CPU), as the
// topology gives it: the bandwidth one GPU gets when every GPU of its host moves data to
// host memory at once (each link's bandwidth split over the GPUs routed through it).
#pragma once

#include <optional>

#include "sim/topo/link_graph.hpp"
#include "sim/train/host_costs.hpp"

namespace collsim {

// nullopt when the rank's host has no CPU node the GPU can reach.
[[nodiscard]] std::optional<HostLink> host_link_of(LinkGraph& graph, int rank);

}  // namespace collsim
