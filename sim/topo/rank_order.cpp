#include "sim/topo/rank_order.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <utility>

namespace collsim {

namespace {
constexpr std::array<std::pair<RankOrder, std::string_view>, 3> kOrders{{
    {RankOrder::Gpus, "gpus"},
    {RankOrder::GpusByHost, "gpus_by_host"},
    {RankOrder::Hosts, "hosts"},
}};
}  // namespace

std::string_view to_string(RankOrder o) {
  for (const auto& [order, name] : kOrders) {
    if (order == o) return name;
  }
  return "?";
}

std::optional<RankOrder> rank_order_from(std::string_view s) {
  for (const auto& [order, name] : kOrders) {
    if (name == s) return order;
  }
  return std::nullopt;
}

std::vector<std::string> rank_order_names() {
  std::vector<std::string> out;
  for (const auto& [order, name] : kOrders) out.emplace_back(name);
  return out;
}

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
