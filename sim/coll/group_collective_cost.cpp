#include "sim/coll/group_collective_cost.hpp"

#include <set>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "sim/algo/registry.hpp"
#include "sim/coll/cost_model.hpp"
#include "sim/coll/group_isomorphism.hpp"
#include "sim/coll/predict.hpp"
#include "sim/coll/schedule_player.hpp"
#include "sim/coll/topology_facts.hpp"
#include "sim/core/error.hpp"
#include "sim/core/name_table.hpp"

namespace collsim {

namespace {

// `one` (a schedule over ranks 0..m-1 of a group) copied once per group onto the job's
// ranks: group g's transfers move between its ranks, on chunks and dependencies of its own.
Schedule merge(const Schedule& one, const std::vector<std::vector<int>>& groups, int job_ranks) {
  Collective c = one.collective();
  c.ranks = job_ranks;
  Schedule merged(c, one.algorithm());
  const auto transfers = static_cast<TransferId>(one.size());
  merged.reserve(one.size() * groups.size(), one.dependency_count() * groups.size());
  for (const auto& group : groups) {
    const std::int32_t chunk_base = static_cast<std::int32_t>(merged.chunks().size());
    for (const ChunkSpec& spec : one.chunks()) {
      ChunkSpec s = spec;
      if (s.origin != ChunkSpec::kEveryRank) s.origin = group[static_cast<std::size_t>(s.origin)];
      if (s.destination != ChunkSpec::kEveryRank) s.destination = group[static_cast<std::size_t>(s.destination)];
      merged.add_chunk(s);
    }
    const auto base = static_cast<TransferId>(merged.size());
    std::vector<TransferId> deps;
    for (TransferId t = 0; t < transfers; ++t) {
      Transfer tr = one.transfer(t);
      tr.src = group[static_cast<std::size_t>(tr.src)];
      tr.dst = group[static_cast<std::size_t>(tr.dst)];
      tr.chunk += chunk_base;
      deps.clear();
      for (TransferId d : one.deps(t)) deps.push_back(base + d);
      merged.add(tr, deps);
    }
  }
  return merged;
}

}  // namespace

int ranks_per_node(const Topology& topo) {
  const int n = topo.rank_count();
  if (n == 0) return 1;
  auto host = [&topo](int r) {
    const NodeIndex node = topo.ranks[static_cast<std::size_t>(r)];
    return topo.nodes[node].host.value_or(node);
  };
  int per = 1;
  while (per < n && host(per) == host(0)) ++per;
  std::set<NodeIndex> seen;
  for (int r = 0; r < n; ++r) {
    // Block r / per must be one host, not seen in an earlier block.
    const bool ok = n % per == 0 && host(r) == host(r - r % per) && (r % per != 0 || seen.insert(host(r)).second);
    if (!ok) {
      throw ConfigError("topology", "/ranks", topo.nodes[topo.ranks[static_cast<std::size_t>(r)]].id,
                        fmt::format("the same number of ranks ({}) on every host, each host's ranks consecutive", per));
    }
  }
  return per;
}

GroupCollectiveCost::GroupCollectiveCost(LinkGraph& graph, std::string algorithm, int ranks_per_node, Protocol protocol)
    : GroupCollectiveCost(graph, CommSpec{std::move(algorithm), std::string(to_string(protocol))}, ranks_per_node) {}

GroupCollectiveCost::GroupCollectiveCost(LinkGraph& graph, CommSpec spec, int ranks_per_node)
    : graph_(graph), spec_(std::move(spec)), ranks_per_node_(ranks_per_node) {
  const int n = graph.topology().rank_count();
  if (ranks_per_node < 1 || n % ranks_per_node != 0) {
    throw ConfigError("", "ranks_per_node", std::to_string(ranks_per_node),
                      fmt::format("a divisor of the job's {} ranks", n));
  }
  try {
    (void)spec_.request(CollectiveOp::AllReduce);
  } catch (const std::invalid_argument& e) {
    throw ConfigError("", "algorithms", spec_.algorithms, fmt::format("one of {}, a list or auto ({})",
                                                                       fmt::join(algorithm_names(), ", "), e.what()));
  }
}

std::vector<std::vector<int>> GroupCollectiveCost::groups(CommGroup group) const {
  const int n = graph_.topology().rank_count();
  const int per = ranks_per_node_;
  const int nodes = n / per;
  std::vector<std::vector<int>> out;
  switch (group) {
    case CommGroup::World:
      out.emplace_back();
      for (int r = 0; r < n; ++r) out.back().push_back(r);
      break;
    case CommGroup::IntraNode:
      for (int k = 0; k < nodes; ++k) {
        out.emplace_back();
        for (int i = 0; i < per; ++i) out.back().push_back(k * per + i);
      }
      break;
    case CommGroup::InterNode:
      for (int i = 0; i < per; ++i) {
        out.emplace_back();
        for (int k = 0; k < nodes; ++k) out.back().push_back(k * per + i);
      }
      break;
  }
  return out;
}

Time GroupCollectiveCost::time(CollectiveOp op, Bytes bytes, CommGroup group) {
  const auto key = std::make_tuple(op, bytes.count, group);
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  const auto g = groups(group);
  Time t{};
  if (bytes.count > 0 && g.front().size() > 1) {
    if (spec_.request(op).algorithms.empty()) {
      throw ConfigError("", "algorithms", spec_.algorithms,
                        fmt::format("an algorithm that implements {} (needed by the {} group)", to_string(op), to_string(group)));
    }
    t = play_groups(op, bytes, g);
  }
  cache_.emplace(key, t);
  return t;
}

Time GroupCollectiveCost::time_during(CollectiveOp op, Bytes bytes, CommGroup group,
                                      const std::shared_ptr<const LinkScenario>& events) {
  const auto g = groups(group);
  if (bytes.count == 0 || g.front().size() <= 1) return Time{};
  (void)time(op, bytes, group);  // the checks, and the healthy choice cached
  return play_groups(op, bytes, g, events);
}

Time GroupCollectiveCost::play_groups(CollectiveOp op, Bytes bytes, const std::vector<std::vector<int>>& groups,
                                      const std::shared_ptr<const LinkScenario>& events) {
  const Topology& topo = graph_.topology();
  const int m = static_cast<int>(groups.front().size());
  const Collective c{op, m, 0, bytes};
  CollectiveRequest request = spec_.request(op);
  request.scenario = events;
  try {
    if (groups.size() == 1 && m == topo.rank_count()) {
      // The whole job: the predictor itself (with its step-per-phase fast path).
      return predict_collective(graph_, c, request).time;
    }
    // Every group costs the same on its own sub-topology (same algorithm, same rank count,
    // group 0's placement): group 0 alone picks the algorithm and protocol, its schedule is
    // copied onto every group and all are played at once.
    Topology sub = topo;
    sub.ranks.clear();
    for (int r : groups.front()) sub.ranks.push_back(topo.ranks[static_cast<std::size_t>(r)]);
    std::string algorithm = request.algorithms.front();
    Protocol protocol = request.protocols.front();
    if (request.algorithms.size() > 1 || request.protocols.size() > 1) {
      LinkGraph alone(sub);
      CollectiveRequest healthy = request;
      healthy.scenario = nullptr;  // the choice is made on the group's own links, healthy
      healthy.choose_only = true;  // its time is the merged play's below
      const CollectivePrediction choice = predict_collective(alone, c, healthy);
      algorithm = choice.algorithm;
      protocol = choice.protocol;
    }
    const CollectiveCost cost = collective_cost(topology_facts(sub), c, algorithm, protocol, spec_.model);
    if (cost.unusable) throw std::invalid_argument(*cost.unusable);
    const Schedule one = build_schedule(algorithm, c, cost.options);
    if (one.size() == 0) return Time{};
    PlayOptions play;
    play.cost = cost.step;
    play.scenario = events.get();
    // Copies that cannot meet take group 0's time: only its copy is played.
    const bool alone_suffices = play_alone_ && !events && groups.size() > 1 && independent_copies(graph_, rank_pairs(one), groups);
    if (alone_suffices) ++alone_plays_;
    const Schedule merged = alone_suffices ? merge(one, {groups.front()}, topo.rank_count()) : merge(one, groups, topo.rank_count());
    const Time t = play_schedule(merged, graph_, play).duration + cost.base_latency;
    spdlog::debug("{} {} B on {} groups of {}: {}/{}, {} transfers played{}", to_string(op), bytes.count, groups.size(), m,
                  algorithm, to_string(protocol), merged.size(), alone_suffices ? " (group 0 alone: independent copies)" : "");
    return t;
  } catch (const std::invalid_argument& e) {
    throw ConfigError("", "algorithms", spec_.algorithms,
                      fmt::format("an algorithm that runs {} on {} ranks ({})", to_string(op), m, e.what()));
  }
}

Time GroupCollectiveCost::time_groups(CollectiveOp op, Bytes bytes, const std::vector<std::vector<int>>& groups) {
  if (bytes.count <= 0 || groups.empty() || groups.front().size() <= 1) return Time{};
  const int n = graph_.topology().rank_count();
  for (const auto& g : groups) {
    if (g.size() != groups.front().size()) throw std::invalid_argument("time_groups: groups of different sizes");
    for (int r : g) {
      if (r < 0 || r >= n) throw std::invalid_argument(fmt::format("time_groups: rank {} outside the job's {}", r, n));
    }
  }
  auto key = std::make_tuple(op, bytes.count, groups);
  if (auto it = listed_cache_.find(key); it != listed_cache_.end()) return it->second;
  if (spec_.request(op).algorithms.empty()) {
    throw ConfigError("", "algorithms", spec_.algorithms, fmt::format("an algorithm that implements {}", to_string(op)));
  }
  const Time t = play_groups(op, bytes, groups);
  listed_cache_.emplace(std::move(key), t);
  return t;
}

GroupCostFn GroupCollectiveCost::function() {
  return [this](CollectiveOp op, Bytes bytes, CommGroup group) { return time(op, bytes, group); };
}

}  // namespace collsim
