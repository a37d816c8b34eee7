// Knobs every algorithm module reads: channels, pipeline slicing (bytes), ring order and
// which host each rank sits on (for hierarchical algorithms).
#pragma once

#include <memory>
#include <vector>

#include "sim/core/units.hpp"

namespace collsim {

struct CollNetLayout;  // sim/algo/collnet.hpp

struct AlgorithmOptions {
  std::vector<int> ring_order;    // ranks around the ring; empty: 0..N-1
  // Per-channel rank orders (NCCL's channel graphs): channel c uses channel_orders[c %
  // size] as its ring, and for trees each host's ranks in the order they appear there
  // (the first is the host's head). Empty: every channel uses ring_order / rank order.
  std::vector<std::vector<int>> channel_orders;
  int channels = 1;               // parallel rings/trees, the data split across them
  Bytes slice_bytes{0};           // pipeline slice per channel and step; 0: no slicing
  int max_slices = 64;            // bound on slices per channel (keeps schedules small)
  std::vector<int> host_of_rank;  // host index per rank; empty: every rank its own host
  // CollNet's heads, chains and fabric spans (sim/coll/collnet_layout.hpp computes them
  // from the topology); null: the topology-free default of collnet_default_layout.
  std::shared_ptr<const CollNetLayout> collnet;
};

// How many pipeline slices `bytes` (one channel's share of one piece) is cut into.
[[nodiscard]] int slice_count(Bytes bytes, const AlgorithmOptions& opt);

}  // namespace collsim
