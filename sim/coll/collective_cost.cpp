#include "sim/coll/nccl_env.hpp"
#include "sim/coll/collective_cost.hpp"

#include <algorithm>
#include <memory>
#include <mutex>
#include <set>

#include <fmt/format.h>

#include "sim/coll/topology_facts.hpp"
#include "sim/core/error.hpp"
#include "sim/core/work_pool.hpp"

namespace collsim {

namespace {

CommSpec ideal(std::string algorithm) {
  CommSpec s;
  s.algorithms = std::move(algorithm);
  s.protocols = "ideal";
  return s;
}

}  // namespace

void throw_unusable_spec(const CommSpec& spec, const Topology& topo, const std::invalid_argument& why) {
  throw ConfigError("", "algorithms", fmt::format("\"{}\" with protocol \"{}\"", spec.algorithms, spec.protocols),
                    fmt::format("a combination that can run on {} ({} ranks: {})", topo.name, topo.rank_count(), why.what()));
}

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
  try {
    CollectiveRequest request = request_for(op);
    request.scenario = events;
    return predict_collective(graph_, Collective{op, ranks, 0, bytes}, request).time;
  } catch (const std::invalid_argument& e) {
    throw_unusable_spec(spec_, graph_.topology(), e);
  }
}

Time CollectiveCostCache::time(CollectiveOp op, Bytes bytes) {
  const int ranks = graph_.topology().rank_count();
  if (ranks <= 1 || bytes.count == 0) return Time{};
  try {
    CollectiveRequest request = request_for(op);  // may turn a broadcast into an all-reduce
    const auto key = std::make_pair(op, bytes.count);
    if (auto it = cache_.find(key); it != cache_.end()) return it->second;
    const CollectivePrediction p = predict_collective(graph_, Collective{op, ranks, 0, bytes}, request);
    cache_.emplace(key, p.time);
    chosen_.emplace(key, p);
    return p.time;
  } catch (const std::invalid_argument& e) {
    throw_unusable_spec(spec_, graph_.topology(), e);
  }
}

void CollectiveCostCache::prefetch(const std::vector<std::pair<CollectiveOp, Bytes>>& collectives, unsigned threads) {
  const int ranks = graph_.topology().rank_count();
  if (ranks <= 1) return;
  struct Job {
    CollectiveOp op;
    Bytes bytes;
    CollectiveRequest request;
    std::optional<CollectivePrediction> result;
  };
  std::vector<Job> jobs;
  std::set<std::pair<CollectiveOp, std::int64_t>> listed;
  for (auto [op, bytes] : collectives) {
    if (bytes.count == 0) continue;
    CollectiveOp played = op;
    CollectiveRequest request;
    try {
      request = request_for(played);  // may turn a broadcast into an all-reduce
    } catch (const std::invalid_argument& e) {
      throw_unusable_spec(spec_, graph_.topology(), e);
    }
    const auto key = std::make_pair(played, bytes.count);
    if (!cache_.contains(key) && listed.insert(key).second) jobs.push_back(Job{played, bytes, std::move(request), std::nullopt});
  }
  // Biggest first, so that the threads finish together. Each thread plays on its own
  // LinkGraph (route caches and pinned routes are per graph).
  std::stable_sort(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) { return a.bytes.count > b.bytes.count; });
  const Topology& topo = graph_.topology();
  std::mutex spare_mutex;
  std::vector<std::unique_ptr<LinkGraph>> spare;  // graphs of finished plays, reused by the next
  parallel_for(jobs.size(), threads, [&](std::size_t i) {
    std::unique_ptr<LinkGraph> own;
    {
      const std::lock_guard<std::mutex> lock(spare_mutex);
      if (!spare.empty()) {
        own = std::move(spare.back());
        spare.pop_back();
      }
    }
    if (!own) own = std::make_unique<LinkGraph>(topo);
    try {
      jobs[i].result = predict_collective(*own, Collective{jobs[i].op, ranks, 0, jobs[i].bytes}, jobs[i].request);
    } catch (const std::invalid_argument& e) {
      throw_unusable_spec(spec_, topo, e);
    }
    const std::lock_guard<std::mutex> lock(spare_mutex);
    spare.push_back(std::move(own));
  });
  for (const Job& j : jobs) {
    const auto key = std::make_pair(j.op, j.bytes.count);
    cache_.emplace(key, j.result->time);
    chosen_.emplace(key, *j.result);
  }
}

std::optional<CollectivePrediction> CollectiveCostCache::prediction(CollectiveOp op, Bytes bytes) const {
  if (auto it = chosen_.find(std::make_pair(op, bytes.count)); it != chosen_.end()) return it->second;
  return std::nullopt;
}

}  // namespace collsim
