// When concurrent copies of one group's schedule can be played as one: the rank pairs a
// schedule uses, and whether copies on several groups never meet (independent copies).
// Routes are compared link by link: two links correspond when they have the same kind, rate
// and latency, and the correspondence must be one-to-one. The flow engine shares a link
// only among the flows on it, so corresponding plays take equal times.
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

}  // namespace collsim
