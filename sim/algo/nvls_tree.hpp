// NCCL's NVLSTree all-reduce (NCCL 2.19+, several hosts of NVSwitch GPUs, Hopper or newer):
// inside each host the NVSwitch reduces block j of the buffer (S / ppn bytes) onto local GPU
// j (NVLS: ToSwitch legs); local GPU j of every host then all-reduces its block across
// hosts, over its own NIC, by NCCL's double binary tree over the hosts (ncclGetDtree, as
// connectNvls builds it; each block in two halves, one per tree); each local GPU j multicasts its summed
// block to the other GPUs of its host through the NVSwitch (FromSwitch legs). Pipelined
// in slices. One of auto's candidates, priced by NCCL's tuning model (cost_model.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "sim/algo/algorithm_info.hpp"

namespace collsim {

extern const AlgorithmInfo kNvlsTreeAlgorithm;

// What the schedule is made of, for the schedule and its steady-state estimate alike.
// Stream q = 2 j + t carries half t of block j (local GPU j's) on tree t.
struct NvlsTreePlan {
  std::vector<std::vector<int>> ranks;    // per host, its ranks ascending (local GPU j = ranks[h][j])
  std::vector<std::vector<Bytes>> parts;  // per stream, its slices' bytes in order
  // Per tree t (0 and its mirror 1): the host at each position, breadth first from the root,
  // and each position's parent position (-1 at the root, position 0).
  std::array<std::vector<int>, 2> host_at, parent_at;

  [[nodiscard]] int hosts() const { return static_cast<int>(ranks.size()); }
  [[nodiscard]] int ppn() const { return ranks.empty() ? 0 : static_cast<int>(ranks.front().size()); }
  [[nodiscard]] int streams() const { return static_cast<int>(parts.size()); }
  [[nodiscard]] int slices() const { return parts.empty() ? 0 : static_cast<int>(parts.front().size()); }
  [[nodiscard]] int host(int t, int k) const { return host_at[static_cast<std::size_t>(t)][static_cast<std::size_t>(k)]; }
  [[nodiscard]] int parent(int t, int k) const { return parent_at[static_cast<std::size_t>(t)][static_cast<std::size_t>(k)]; }
  // Transfers the schedule holds (joins included).
  [[nodiscard]] std::uint64_t transfers() const;
};

// Throws std::invalid_argument when `c` is not an all-reduce or the hosts hold different
// numbers of ranks.
[[nodiscard]] NvlsTreePlan nvls_tree_plan(const Collective& c, const AlgorithmOptions& opt);

}  // namespace collsim
