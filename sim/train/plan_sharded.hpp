// Collective times for a plan's sharded strategies on one candidate topology: the
// sharded timeline's three communication groups (all ranks, one node's ranks, one rank per
// node) each played by the collective predictor on its own ranks and cached per
// (group, operation, bytes). Times in ps, sizes nccl-tests sizes in bytes.
#pragma once

#include <memory>
#include <string>

#include "sim/topo/link_graph.hpp"
#include "sim/train/collective_cost.hpp"
#include "sim/train/sharded_timeline.hpp"

namespace collsim {

class ShardedCosts {
 public:
  // `graph` (over `topo`'s ranks) must outlive this. `gpus_per_host` ranks form one node
  // (0: the whole world is one node).
  ShardedCosts(LinkGraph& graph, const Topology& topo, int gpus_per_host, const std::string& algorithm);

  // The intra-node group is the first node's ranks (every node's group runs on its own
  // links, so one node's time is each node's time); the inter-node group is rank 0 of
  // every node (the first of gpus_per_host such groups; they run concurrently and may
  // share fabric links, which this does not charge: a lower bound on a shared fabric).
  [[nodiscard]] GroupCostFn cost();

 private:
  LinkGraph& world_;
  std::unique_ptr<LinkGraph> intra_, inter_;
  std::unique_ptr<CollectiveCostCache> world_cost_, intra_cost_, inter_cost_;
};

// Unsharded parameter bytes of the largest unit under `o`'s policy (param_bytes each).
[[nodiscard]] Bytes largest_unit_bytes(const Workload& w, const ShardingOptions& o);

}  // namespace collsim
