#include "sim/topo/rank_order.hpp"

#include <algorithm>
#include <limits>

#include "sim/core/name_table.hpp"

namespace collsim {

std::vector<NodeIndex> ranks_in_order(const Topology& t, RankOrder order) {
  std::vector<NodeIndex> out;
  const NodeKind want = order == RankOrder::Hosts ? NodeKind::Host : NodeKind::Gpu;
  for (NodeIndex n = 0; n < t.nodes.size(); ++n) {
    if (t.nodes[n].kind == want) out.push_back(n);
  }
  if (order == RankOrder::GpusByHost) {
    // Stable sort by host keeps node order (the local index) within each host.
    constexpr auto kNoHost = std::numeric_limits<NodeIndex>::max();
    std::stable_sort(out.begin(), out.end(), [&](NodeIndex a, NodeIndex b) {
      return t.nodes[a].host.value_or(kNoHost) < t.nodes[b].host.value_or(kNoHost);
    });
  }
  return out;
}

}  // namespace collsim
