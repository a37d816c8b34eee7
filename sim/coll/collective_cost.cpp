#include "sim/coll/nccl_env.hpp"
#include "sim/coll/collective_cost.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>

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
  for (const auto& wanted : collectives) {
    CollectiveOp op = wanted.first;  // plain locals: lambdas below capture them
    const Bytes bytes = wanted.second;
    if (bytes.count == 0) continue;
    CollectiveRequest request = request_for(op);  // may turn a broadcast into an all-reduce
    const auto key = std::make_pair(op, bytes.count);
    const bool listed = std::any_of(jobs.begin(), jobs.end(), [&](const Job& j) { return j.op == op && j.bytes == bytes; });
    if (!listed && !cache_.contains(key)) jobs.push_back(Job{op, bytes, std::move(request), std::nullopt});
  }
  if (jobs.empty()) return;
  // Biggest first, so that the threads finish together.
  std::stable_sort(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) { return a.bytes.count > b.bytes.count; });
  std::atomic<std::size_t> next{0};
  std::exception_ptr failure;
  std::atomic<bool> failed{false};
  const Topology& topo = graph_.topology();
  auto worker = [&] {
    LinkGraph own(topo);
    for (std::size_t i = next++; i < jobs.size() && !failed; i = next++) {
      try {
        jobs[i].result = predict_collective(own, Collective{jobs[i].op, ranks, 0, jobs[i].bytes}, jobs[i].request);
      } catch (...) {
        if (!failed.exchange(true)) failure = std::current_exception();
      }
    }
  };
#ifdef __EMSCRIPTEN__
  threads = 1;  // the WebAssembly build has no threads
#endif
  const unsigned n = std::clamp<unsigned>(threads, 1, static_cast<unsigned>(jobs.size()));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < n; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
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
