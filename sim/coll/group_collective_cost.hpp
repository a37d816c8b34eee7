// Collective times for a sharded job's process groups on a topology: the whole job
// (World), every node's ranks at once (IntraNode) or ranks_per_node replica groups of one
// rank per node at once (InterNode). Concurrent groups are played as one merged schedule,
// so groups that share links (NICs, fabric) share their bandwidth. Cached per
// (operation, bytes, group). Times in ps, sizes in bytes (nccl-tests size).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "sim/algo/collective.hpp"
#include "sim/algo/schedule.hpp"
#include "sim/coll/comm_group.hpp"
#include "sim/coll/comm_spec.hpp"
#include "sim/coll/predict.hpp"
#include "sim/topo/link_graph.hpp"

namespace collsim {

class GroupCollectiveCost {
 public:
  // `graph` must outlive the cache; its topology's ranks are the job's ranks, node by
  // node: ranks [k L, (k+1) L) are node k's (L = ranks_per_node, as torch's HYBRID_SHARD
  // groups them). Throws ConfigError (empty source, field "ranks_per_node") unless L >= 1
  // divides the rank count, and (field "algorithms", the CommSpec's) for an unknown algorithm.
  GroupCollectiveCost(LinkGraph& graph, std::string algorithm, int ranks_per_node, Protocol protocol = Protocol::Ideal);
  // NCCL's choice (or the spec's lists): the whole job's group is predicted as one
  // collective; concurrent groups run the (algorithm, protocol) one group alone would
  // choose, each on the channels NCCL's search gives it on its own GPUs and its hosts'
  // NICs (as `collective` prices a topology of its ranks alone), played together so they
  // share links. `spec` as resolve_comm_spec leaves it.
  GroupCollectiveCost(LinkGraph& graph, CommSpec spec, int ranks_per_node);

  // Time until the last of the concurrent groups finishes; 0 for one-rank groups or 0 B.
  // Throws ConfigError (field "algorithms") when the algorithm cannot run the operation.
  [[nodiscard]] Time time(CollectiveOp op, Bytes bytes, CommGroup group);
  // The same with link events during the collective (times from its start; not cached).
  [[nodiscard]] Time time_during(CollectiveOp op, Bytes bytes, CommGroup group, const std::shared_ptr<const LinkScenario>& events);
  // Any concurrent groups of equal size (job rank lists, e.g. a parallel layout's TP or DP
  // groups; 2-rank broadcasts are point-to-point sends), cached per (operation, bytes, groups).
  [[nodiscard]] Time time_groups(CollectiveOp op, Bytes bytes, const std::vector<std::vector<int>>& groups);
  // A GroupCostFn calling time(); the cache must outlive it.
  [[nodiscard]] GroupCostFn function();

  // The concurrent groups of a kind, as job rank indices.
  [[nodiscard]] std::vector<std::vector<int>> groups(CommGroup group) const;
  [[nodiscard]] std::size_t plays() const { return cache_.size(); }
  // How many plays of concurrent groups ran group 0's copy alone, the copies being
  // independent and alike (group_isomorphism.hpp); off, every copy is played (for tests).
  [[nodiscard]] std::size_t alone_plays() const { return alone_plays_; }
  void set_play_alone(bool on) { play_alone_ = on; }
  // Concurrent groups that meet are played together one step per phase where the algorithm
  // has a phased form (the ring: phased_player.hpp). Their trees are replayed while the
  // replay's work (transfers x the groups' ranks) stays within the tree budget, else timed
  // from their steady state (estimate_trees: the replay's own time where every edge runs
  // solo, else slower by a few per cent for long pipelines, more for short ones). The
  // budget is tree_replay_budget() / 64: the groups' flows all contend on the shared
  // fabric, so each completion solves rates over all of them (8 trees of 128 ranks on a
  // RoCE fat tree, 2.7e8, replayed in a minute). On, every transfer is replayed
  // (`collective --exact`).
  void set_exact(bool on) { exact_ = on; }
  void set_tree_replay_budget(std::uint64_t work) { tree_budget_ = work; }

 private:
  // The link graph of a topology whose ranks are `group`'s, kept for later calls.
  [[nodiscard]] LinkGraph& group_graph(const std::vector<int>& group);
  // NCCL's channel graph of `group` on its own GPUs and its hosts' NICs, searched once.
  [[nodiscard]] std::shared_ptr<const std::optional<NcclGraph>> channel_graph(const std::vector<int>& group,
                                                                             const CollectiveRequest& request);
  [[nodiscard]] Time play_groups(CollectiveOp op, Bytes bytes, const std::vector<std::vector<int>>& groups,
                                 const std::shared_ptr<const LinkScenario>& events = nullptr);

  LinkGraph& graph_;
  CommSpec spec_;
  int ranks_per_node_;
  bool play_alone_ = true;
  bool exact_ = false;
  std::uint64_t tree_budget_ = tree_replay_budget() / 64;
  std::size_t alone_plays_ = 0;
  std::map<std::tuple<CollectiveOp, std::int64_t, CommGroup>, Time> cache_;
  std::map<std::tuple<CollectiveOp, std::int64_t, std::vector<std::vector<int>>>, Time> listed_cache_;
  // NCCL's channel graphs per group, and per group shape (channel_graph()).
  std::map<std::vector<int>, std::shared_ptr<const std::optional<NcclGraph>>> channel_graphs_;
  std::map<std::vector<NodeIndex>, std::shared_ptr<const std::optional<NcclGraph>>> shaped_graphs_;
  struct GroupGraph {
    Topology topo;
    std::unique_ptr<LinkGraph> graph;  // over topo
  };
  std::map<std::vector<int>, std::unique_ptr<GroupGraph>> group_graphs_;
  std::vector<NodeIndex> rank_host_;  // per job rank: its host
  std::vector<int> rank_place_;       // per job rank: its place among its host's ranks
  std::map<NodeIndex, std::vector<NodeIndex>> host_nics_;  // host_nics of the topology
};

// Ranks per node of a topology: how many ranks share the first rank's host, checked to be
// the same on every host and hosts to hold consecutive ranks; throws ConfigError (source
// "topology") otherwise. A rank without a host is a node of its own (1).
[[nodiscard]] int ranks_per_node(const Topology& topo);

}  // namespace collsim
