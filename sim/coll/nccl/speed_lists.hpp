// The per-channel speeds NCCL's channel search tries, GB/s, fastest first
// (src/graph/search.cc; reference/nccl-model.md s. 4): intra-node lists for one host,
// inter-node lists across hosts, by GPU generation.
#pragma once

#include <span>

#include "sim/coll/protocol.hpp"

namespace collsim {

[[nodiscard]] std::span<const double> nccl_speed_list(GpuArch arch, bool intra);

}  // namespace collsim
