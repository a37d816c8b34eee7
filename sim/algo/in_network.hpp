// In-network all-reduce (NVLS on NVSwitch, SHARP on InfiniBand switches): rank j is
// responsible for block j (S/N bytes). Every other rank sends its block j only up to the
// switch, which reduces (ToSwitch legs); the switch then multicasts the sum down to every
// other rank (FromSwitch legs). Each link carries (N-1)/N S per direction, half a ring's
// 2(N-1)/N S, matching NCCL's NVLS model (busBw = 2 x per-link bw). Pipelined in slices:
// a stream's slice l follows its slice l-1, so reduction and multicast overlap.
#pragma once

#include <string>

#include "sim/algo/algorithm_info.hpp"
#include "sim/algo/algorithm_options.hpp"
#include "sim/algo/schedule.hpp"

namespace collsim {

// `name`: the schedule's algorithm, nvls or sharp (the same schedule; the protocol model
// prices them differently).
[[nodiscard]] Schedule in_network_allreduce(const Collective& c, const std::string& name,
                                            const AlgorithmOptions& opt = {});

extern const AlgorithmInfo kNvlsAlgorithm;
extern const AlgorithmInfo kSharpAlgorithm;

}  // namespace collsim
