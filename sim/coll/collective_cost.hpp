// Collective times for a DDP job, from the collective predictor (predict_collective on the
// topology's ranks with a named algorithm), cached per (operation, bytes per rank).
#pragma once

#include <map>
#include <string>
#include <utility>

#include "sim/algo/collective.hpp"
#include "sim/topo/link_graph.hpp"

namespace collsim {

class CollectiveCostCache {
 public:
  // `graph` must outlive the cache; its topology's ranks are the job's ranks.
  CollectiveCostCache(LinkGraph& graph, std::string algorithm);

  // Predicted time; a single rank costs nothing. A broadcast, when `algorithm` has none,
  // is costed as an all-reduce of the same bytes (an upper bound: a pipelined broadcast
  // moves each byte once per rank, a ring all-reduce twice).
  [[nodiscard]] Time time(CollectiveOp op, Bytes bytes);
  [[nodiscard]] std::size_t predictions() const { return cache_.size(); }
  // Stores a prediction made elsewhere (e.g. on another thread) for later lookups.
  void remember(CollectiveOp op, Bytes bytes, Time t) { cache_.emplace(std::make_pair(op, bytes.count), t); }
  [[nodiscard]] bool broadcast_approximated() const { return broadcast_approximated_; }

 private:
  LinkGraph& graph_;
  std::string algorithm_;
  std::map<std::pair<CollectiveOp, std::int64_t>, Time> cache_;
  bool broadcast_approximated_ = false;
};

}  // namespace collsim
