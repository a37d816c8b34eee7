// A parallel layout of a training job: tensor (tp), pipeline (pp) and data (dp) parallel
// degrees, expert parallelism (ep) carved out of DP, the placement of their ranks on the
// job's ranks, and the process groups that follow. Rank numbers are the topology's ranks
// (host by host).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/name_table.hpp"

namespace collsim {

// Which coordinate varies fastest along the rank numbers. TP is always innermost, so a TP
// group of up to a host's GPUs is one host's NVLink domain.
//   tp-dp-pp: Megatron-LM's order (data parallel next, pipeline stages outermost);
//   tp-pp-dp: pipeline stages next to TP, data-parallel replicas outermost.
enum class PlacementOrder : std::uint8_t { TpDpPp, TpPpDp };
template <>
inline constexpr auto kEnumNames<PlacementOrder> = names_in_order<PlacementOrder>({"tp-dp-pp", "tp-pp-dp"});

struct ParallelLayout {
  int tp = 1, pp = 1, dp = 1;
  int virtual_stages = 1;  // model chunks per pipeline rank (interleaved 1F1B), 1 otherwise
  // Expert parallelism (Megatron-Core's expert-model-parallel size): the experts of an MoE
  // layer are split over ep replicas next to one another along DP; a divisor of dp.
  int ep = 1;
  PlacementOrder order = PlacementOrder::TpDpPp;

  [[nodiscard]] int world() const { return tp * pp * dp; }
  // The rank of tensor rank `t` of pipeline stage `p` in data-parallel replica `d`.
  [[nodiscard]] int rank(int t, int p, int d) const;
  // Every TP group (one per stage and replica); every DP group of stage `p` (one per tensor
  // rank); the (sender, receiver) pairs from stage p to stage p + 1 (one per tensor rank and
  // replica), as rank lists.
  [[nodiscard]] std::vector<std::vector<int>> tp_groups() const;
  [[nodiscard]] std::vector<std::vector<int>> dp_groups(int stage) const;
  [[nodiscard]] std::vector<std::vector<int>> stage_pairs(int stage) const;
  // The EP groups of stage `p`: ep consecutive replicas of one tensor rank, which trade
  // tokens by all-to-all; and the expert-DP groups that reduce the experts' gradients:
  // the dp / ep replicas holding the same experts.
  [[nodiscard]] std::vector<std::vector<int>> ep_groups(int stage) const;
  [[nodiscard]] std::vector<std::vector<int>> expert_dp_groups(int stage) const;
  // Pairs holding the tied input embedding and LM head: stage 0 and stage pp - 1.
  [[nodiscard]] std::vector<std::vector<int>> embedding_pairs() const;
  // "tp8 pp4 dp32" (and "v2" when interleaved, "ep8" with expert parallelism).
  [[nodiscard]] std::string label() const;
};

}  // namespace collsim
