// Collective times for a DDP job, from the collective predictor (predict_collective on the
// topology's ranks with the job's CommSpec: NCCL's choice, or a named algorithm and
// protocol), cached per (operation, bytes per rank).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "sim/algo/collective.hpp"
#include "sim/coll/comm_spec.hpp"
#include "sim/topo/link_graph.hpp"

namespace collsim {

// The ConfigError (field "algorithms", which each command names as its own flag or key)
// for a spec that cannot run a collective on `topo`: `why` is the selector's or the cost
// model's reason (a std::invalid_argument from spec.request or predict_collective).
[[noreturn]] void throw_unusable_spec(const CommSpec& spec, const Topology& topo, const std::invalid_argument& why);

class CollectiveCostCache {
 public:
  // `graph` must outlive the cache; its topology's ranks are the job's ranks. `spec` as
  // resolve_comm_spec leaves it.
  CollectiveCostCache(LinkGraph& graph, CommSpec spec);
  // One algorithm with the ideal protocol (the alpha-beta what-if).
  CollectiveCostCache(LinkGraph& graph, std::string algorithm);

  // Predicted time; a single rank costs nothing. A broadcast, when no listed algorithm has
  // one, is costed as an all-reduce of the same bytes (an upper bound: a pipelined
  // broadcast moves each byte once per rank, a ring all-reduce twice). A spec that cannot
  // run the collective on these ranks throws throw_unusable_spec's ConfigError (all three).
  [[nodiscard]] Time time(CollectiveOp op, Bytes bytes);
  // The same collective with link events during it (times from its start; not cached).
  [[nodiscard]] Time time_during(CollectiveOp op, Bytes bytes, const std::shared_ptr<const LinkScenario>& events);
  // The (algorithm, protocol) the last prediction of that operation and size chose.
  [[nodiscard]] std::optional<CollectivePrediction> prediction(CollectiveOp op, Bytes bytes) const;
  [[nodiscard]] std::size_t predictions() const { return cache_.size(); }
  // Stores a prediction made elsewhere (e.g. on another thread) for later lookups.
  void remember(CollectiveOp op, Bytes bytes, Time t) { cache_.emplace(std::make_pair(op, bytes.count), t); }
  // Predicts every listed collective not cached yet on up to `threads` threads (0: one per
  // core; parallel_for), each on its own LinkGraph of the same topology (the channel graph is searched once and shared), and
  // caches them: later time() and prediction() calls answer from the cache, with the same
  // results as playing them one by one.
  void prefetch(const std::vector<std::pair<CollectiveOp, Bytes>>& collectives, unsigned threads);
  [[nodiscard]] bool broadcast_approximated() const { return broadcast_approximated_; }
  [[nodiscard]] const CommSpec& spec() const { return spec_; }

 private:
  LinkGraph& graph_;
  CommSpec spec_;
  std::shared_ptr<const std::optional<NcclGraph>> channel_graph_;  // searched on first NCCL use
  std::map<std::pair<CollectiveOp, std::int64_t>, Time> cache_;
  std::map<std::pair<CollectiveOp, std::int64_t>, CollectivePrediction> chosen_;
  bool broadcast_approximated_ = false;

  // The request for `op` (a broadcast without a broadcast algorithm becomes an all-reduce),
  // with NCCL's channel graph when a protocol needs it.
  [[nodiscard]] CollectiveRequest request_for(CollectiveOp& op);
};

}  // namespace collsim
