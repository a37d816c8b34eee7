// In-network all-reduce (NVLS on NVSwitch, SHARP on InfiniBand switches): rank j is
// responsible for block j (S/N bytes). Every other rank sends its block j only up to the
// switch, which reduces (ToSwitch legs); the switch then multicasts the sum down to every
// other rank (FromSwitch legs). The legs carry (N-1)/N S per link and direction, half a
// ring's 2(N-1)/N S, as NCCL's NVLS model counts. On NVLS a GPU's port also carries its
// own block and the sum's round trip (S + S/N in all); the cost model charges that
// (cost_model.cpp), since those bytes change no rank's data. Pipelined in slices: a
// stream's slice l follows its slice l-1, so reduction and multicast overlap.
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
