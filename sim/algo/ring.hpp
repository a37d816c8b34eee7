// Ring algorithms (NCCL's Ring): all-reduce = reduce-scatter + all-gather, 2(N-1) steps;
// reduce-scatter and all-gather, N-1 steps; broadcast and reduce as a pipelined chain
// from/to the root. The data is split over K channels (parallel rings over the same
// order) and each channel's piece into pipeline slices: slice l of step k follows slice
// l-1 of step k on the same link, and only slice 0 pays the per-step protocol latency.
// A rank starts step k+1 of a slice once it has sent and received step k of it.
#pragma once

#include <memory>

#include "sim/algo/algorithm_info.hpp"
#include "sim/algo/algorithm_options.hpp"
#include "sim/algo/schedule.hpp"

namespace collsim {

// Any op but all-to-all. `opt.ring_order` (a permutation of 0..N-1) sets the ring.
[[nodiscard]] Schedule ring_schedule(const Collective& c, const AlgorithmOptions& opt = {});

// The same schedule computed on demand (all-reduce, reduce-scatter, all-gather; nullptr
// for broadcast and reduce). Throws as ring_schedule does.
[[nodiscard]] std::unique_ptr<GeneratedSchedule> generated_ring(const Collective& c, const AlgorithmOptions& opt = {});

extern const AlgorithmInfo kRingAlgorithm;

}  // namespace collsim
