// NCCL's PAT, "parallel aggregated trees" (NCCL 2.23+, src/include/collectives.h
// PatAGAlgorithm / PatRSAlgorithm): all-gather and reduce-scatter on one GPU per node in
// ceil(log2 n) dimensions, a Bruck-style binomial pattern shifted for every rank.
//
// All-gather: rank x's block reaches rank x - s (mod n) along the set bits of s, the
// highest first. In dimension d, from the highest down, rank q sends to q - 2^d the blocks
// of origins q + t for every t < n - 2^d that is a multiple of 2^(d+1) (t = 0: its own
// block); it received each of the others in a higher dimension. A rank sends n - 1 blocks
// in all, as in the ring, but a block passes through at most ceil(log2 n) hops.
// Reduce-scatter is the mirror image: dimensions from the lowest up, rank q sends to
// q + 2^d its partial sums for destinations q + 2^d + t, which are reduced there; a step
// waits for the one before it (a rank's partial sum of a block must hold every
// contribution routed through it before it passes it on).
//
// NCCL aggregates a dimension's blocks into one message where its buffer allows; the
// replay sends them as transfers to the same peer at once, which share the route alike.
// NCCL's channels run the same pattern on their shares of the data in lockstep, so the
// schedule is built once and the cost model caps its flows at the channels' combined
// speed. Only NCCL's protocol Simple, and only with one rank per host (ncclPatEnable).
#pragma once

#include <cstdint>

#include "sim/algo/algorithm_info.hpp"

namespace collsim {

[[nodiscard]] Schedule pat_schedule(const Collective& c, const AlgorithmOptions& opt = {});

// Transfers of PAT's schedule on `ranks` ranks: every rank sends n - 1 blocks.
[[nodiscard]] std::uint64_t pat_transfers(int ranks);
// Whether that schedule (its joins and dependencies included) stays within
// max_schedule_bytes(), so the cost model can refuse PAT before pat_schedule would throw.
[[nodiscard]] bool pat_schedule_fits(int ranks);

extern const AlgorithmInfo kPatAlgorithm;

}  // namespace collsim
