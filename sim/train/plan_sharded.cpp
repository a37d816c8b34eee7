#include "sim/train/plan_sharded.hpp"

#include <algorithm>

namespace collsim {

namespace {

Topology with_ranks(const Topology& topo, int first, int stride, int count) {
  Topology t = topo;
  t.ranks.clear();
  for (int i = 0; i < count; ++i) t.ranks.push_back(topo.ranks[static_cast<std::size_t>(first + i * stride)]);
  return t;
}

}  // namespace

ShardedCosts::ShardedCosts(LinkGraph& graph, const Topology& topo, int gpus_per_host, const std::string& algorithm)
    : world_(graph) {
  const int world = topo.rank_count();
  const int g = gpus_per_host > 0 ? std::min(gpus_per_host, world) : world;
  intra_ = std::make_unique<LinkGraph>(with_ranks(topo, 0, 1, g));
  inter_ = std::make_unique<LinkGraph>(with_ranks(topo, 0, g, world / g));
  world_cost_ = std::make_unique<CollectiveCostCache>(world_, algorithm);
  intra_cost_ = std::make_unique<CollectiveCostCache>(*intra_, algorithm);
  inter_cost_ = std::make_unique<CollectiveCostCache>(*inter_, algorithm);
}

GroupCostFn ShardedCosts::cost() {
  return [this](CollectiveOp op, Bytes bytes, CommGroup group) {
    switch (group) {
      case CommGroup::World: return world_cost_->time(op, bytes);
      case CommGroup::IntraNode: return intra_cost_->time(op, bytes);
      case CommGroup::InterNode: return inter_cost_->time(op, bytes);
    }
    return world_cost_->time(op, bytes);
  };
}

Bytes largest_unit_bytes(const Workload& w, const ShardingOptions& o) {
  std::int64_t largest = 0;
  for (const auto& u : make_units(w, o)) largest = std::max(largest, u.numel);
  return Bytes{largest * o.precision.param_bytes};
}

}  // namespace collsim
