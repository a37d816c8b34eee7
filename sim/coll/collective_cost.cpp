#include "sim/coll/nccl_env.hpp"
#include "sim/coll/collective_cost.hpp"

#include <algorithm>

#include "sim/coll/topology_facts.hpp"

namespace collsim {

namespace {

CommSpec ideal(std::string algorithm) {
  CommSpec s;
  s.algorithms = std::move(algorithm);
  s.protocols = "ideal";
  return s;
}

}  // namespace

CollectiveCostCache::CollectiveCostCache(LinkGraph& graph, CommSpec spec) : graph_(graph), spec_(std::move(spec)) {}

CollectiveCostCache::CollectiveCostCache(LinkGraph& graph, std::string algorithm)
    : CollectiveCostCache(graph, ideal(std::move(algorithm))) {}

CollectiveRequest CollectiveCostCache::request_for(CollectiveOp& op) {
  CollectiveRequest request = spec_.request(op);
  if (request.algorithms.empty() && op == CollectiveOp::Broadcast) {
    broadcast_approximated_ = true;
    op = CollectiveOp::AllReduce;
    request = spec_.request(op);
  }
  if (std::any_of(request.protocols.begin(), request.protocols.end(), [](Protocol p) { return p != Protocol::Ideal; })) {
    if (!channel_graph_) {
      channel_graph_ = std::make_shared<const std::optional<NcclGraph>>(
          search_nccl_ring(graph_, topology_facts(graph_.topology()).host_of_rank, nccl_search_options(spec_.model)));
    }
    request.channel_graph = channel_graph_;
  }
  return request;
}

Time CollectiveCostCache::time_during(CollectiveOp op, Bytes bytes, const std::shared_ptr<const LinkScenario>& events) {
  const int ranks = graph_.topology().rank_count();
  if (ranks <= 1 || bytes.count == 0) return Time{};
  CollectiveRequest request = request_for(op);
  request.scenario = events;
  return predict_collective(graph_, Collective{op, ranks, 0, bytes}, request).time;
}

Time CollectiveCostCache::time(CollectiveOp op, Bytes bytes) {
  const int ranks = graph_.topology().rank_count();
  if (ranks <= 1 || bytes.count == 0) return Time{};
  CollectiveRequest request = request_for(op);
  const auto key = std::make_pair(op, bytes.count);
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  const CollectivePrediction p = predict_collective(graph_, Collective{op, ranks, 0, bytes}, request);
  cache_.emplace(key, p.time);
  chosen_.emplace(key, p);
  return p.time;
}

std::optional<CollectivePrediction> CollectiveCostCache::prediction(CollectiveOp op, Bytes bytes) const {
  if (auto it = chosen_.find(std::make_pair(op, bytes.count)); it != chosen_.end()) return it->second;
  return std::nullopt;
}

}  // namespace collsim
