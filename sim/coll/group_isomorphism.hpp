// When concurrent copies of one group's schedule can be played as fewer: the rank pairs a
// schedule uses, whether copies on several groups never meet (independent copies), and
// whether one set of groups plays exactly as another already played (the same play up to
// relabelling ranks). Both compare routes link by link: two links correspond when they have
// the same kind, rate and latency, and the correspondence must be one-to-one. The flow
// engine shares a link only among the flows on it, so corresponding plays take equal times.
#pragma once

#include <utility>
#include <vector>

#include "sim/algo/schedule.hpp"
#include "sim/topo/link_graph.hpp"

namespace collsim {

// The distinct (src, dst) rank pairs of a schedule's transfers (src != dst), sorted.
[[nodiscard]] std::vector<std::pair<int, int>> rank_pairs(const Schedule& s);

// True when copies of a schedule over `pairs` (ranks as indices into each group) on
// `groups` cannot slow one another and each takes group 0's time: no rank in two groups,
// no link on two groups' routes, and every group's routes run over links like group 0's in
// the same pattern.
[[nodiscard]] bool independent_copies(LinkGraph& graph, const std::vector<std::pair<int, int>>& pairs,
                                      const std::vector<std::vector<int>>& groups);

// True when `b` plays exactly as `a`: group k's rank i of one corresponds to group k's rank
// i of the other, and under that correspondence (1) ranks share a host exactly when their
// counterparts do, at the same index within it; (2) every route of `pairs` in every group,
// and the route between every two hosts of group 0 (through its first rank on each), maps
// onto its counterpart link by link, one-to-one. (2) covers what NCCL's choice of algorithm
// and channels looks at beyond the schedule itself: how the group's hosts reach each other.
[[nodiscard]] bool same_play(LinkGraph& graph, const std::vector<std::pair<int, int>>& pairs,
                             const std::vector<std::vector<int>>& a, const std::vector<std::vector<int>>& b);

}  // namespace collsim
