// Ring all-reduce: reduce-scatter then all-gather around a ring, 2(N-1) steps, each
// moving one of N chunks (S/N bytes, remainder bytes spread one per chunk) to the next
// rank. A rank starts step k+1 once it has sent and received step k.
#pragma once

#include <span>

#include "sim/algo/schedule.hpp"

namespace collsim {

// `order` lists the ranks around the ring (a permutation of 0..N-1); empty = 0..N-1.
[[nodiscard]] Schedule ring_allreduce(const Collective& c, std::span<const int> order = {});

}  // namespace collsim
