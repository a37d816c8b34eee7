#include "sim/coll/collective_cost.hpp"

#include "sim/algo/registry.hpp"
#include "sim/coll/predict.hpp"

namespace collsim {

CollectiveCostCache::CollectiveCostCache(LinkGraph& graph, std::string algorithm)
    : graph_(graph), algorithm_(std::move(algorithm)) {}

Time CollectiveCostCache::time(CollectiveOp op, Bytes bytes) {
  const int ranks = graph_.topology().rank_count();
  if (ranks <= 1 || bytes.count == 0) return Time{};
  if (op == CollectiveOp::Broadcast && !supports(algorithm_, op)) {
    broadcast_approximated_ = true;
    op = CollectiveOp::AllReduce;
  }
  const auto key = std::make_pair(op, bytes.count);
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  const Time t = predict_collective(graph_, Collective{op, ranks, 0, bytes}, algorithm_).time;
  cache_.emplace(key, t);
  return t;
}

}  // namespace collsim
