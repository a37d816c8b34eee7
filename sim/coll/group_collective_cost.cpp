#include "sim/coll/group_collective_cost.hpp"

#include <algorithm>
#include <atomic>
#include <optional>
#include <set>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "sim/algo/collnet.hpp"
#include "sim/algo/registry.hpp"
#include "sim/algo/tree.hpp"
#include "sim/coll/cost_model.hpp"
#include "sim/coll/group_isomorphism.hpp"
#include "sim/coll/nccl/channel_search.hpp"
#include "sim/coll/nccl_env.hpp"
#include "sim/coll/phased_player.hpp"
#include "sim/coll/predict.hpp"
#include "sim/coll/schedule_player.hpp"
#include "sim/coll/topology_facts.hpp"
#include "sim/coll/tree_estimate.hpp"
#include "sim/core/error.hpp"
#include "sim/core/name_table.hpp"

namespace collsim {

namespace {

// Group k's schedule (over ranks 0..m-1 of the group), `schedules[k]`, copied onto the
// job's ranks, all in one: group k's transfers move between its ranks, on chunks and
// dependencies of its own.
Schedule merge(const std::vector<const Schedule*>& schedules, const std::vector<std::vector<int>>& groups, int job_ranks) {
  const Schedule& one = *schedules.front();
  Collective c = one.collective();
  c.ranks = job_ranks;
  Schedule merged(c, one.algorithm());
  merged.reserve(one.size() * groups.size(), one.dependency_count() * groups.size());
  for (std::size_t k = 0; k < groups.size(); ++k) {
    const auto& group = groups[k];
    const Schedule& one_k = *schedules[k];
    const auto transfers = static_cast<TransferId>(one_k.size());
    const std::int32_t chunk_base = static_cast<std::int32_t>(merged.chunks().size());
    for (const ChunkSpec& spec : one_k.chunks()) {
      ChunkSpec s = spec;
      if (s.origin != ChunkSpec::kEveryRank) s.origin = group[static_cast<std::size_t>(s.origin)];
      if (s.destination != ChunkSpec::kEveryRank) s.destination = group[static_cast<std::size_t>(s.destination)];
      merged.add_chunk(s);
    }
    const auto base = static_cast<TransferId>(merged.size());
    std::vector<TransferId> deps;
    for (TransferId t = 0; t < transfers; ++t) {
      Transfer tr = one_k.transfer(t);
      tr.src = group[static_cast<std::size_t>(tr.src)];
      tr.dst = group[static_cast<std::size_t>(tr.dst)];
      tr.chunk += chunk_base;
      deps.clear();
      for (TransferId d : one_k.deps(t)) deps.push_back(base + d);
      merged.add(tr, deps);
    }
  }
  return merged;
}

// The groups' phased forms (phased_schedule.hpp) as one: group k's steps on its own job
// ranks, its channels numbered after group k-1's. `options[k]` is group k's. nullopt unless
// every group has a form of one phase, the same repeats (a barrier between phases would
// hold every group for the slowest, which the groups' own schedules do not), and no rank is
// in two groups (the phased replay gates a rank's steps on all its transfers, which would
// tie the two groups' steps together).
std::optional<PhasedSchedule> merge_phased(std::string_view algorithm, const Collective& c,
                                           const std::vector<const AlgorithmOptions*>& options,
                                           const std::vector<std::vector<int>>& groups, int job_ranks) {
  std::vector<bool> taken(static_cast<std::size_t>(job_ranks), false);
  for (const auto& group : groups) {
    for (int r : group) {
      if (taken[static_cast<std::size_t>(r)]) return std::nullopt;
      taken[static_cast<std::size_t>(r)] = true;
    }
  }
  std::optional<PhasedSchedule> merged;
  std::int32_t channel_base = 0;
  for (std::size_t k = 0; k < groups.size(); ++k) {
    auto one = phased_schedule(algorithm, c, *options[k]);
    if (!one || one->phases.size() != 1 || (merged && merged->phases.front().repeats != one->phases.front().repeats)) {
      return std::nullopt;
    }
    if (!merged) {
      merged = PhasedSchedule{c, one->algorithm, {SchedulePhase{one->phases.front().name, {}, one->phases.front().repeats}}};
      merged->collective.ranks = job_ranks;
    }
    std::int32_t channels = 0;
    for (Transfer t : one->phases.front().step) {
      channels = std::max(channels, t.chunk + 1);
      t.src = groups[k][static_cast<std::size_t>(t.src)];
      t.dst = groups[k][static_cast<std::size_t>(t.dst)];
      t.chunk += channel_base;
      merged->phases.front().step.push_back(t);
    }
    channel_base += channels;
  }
  return merged;
}

// The groups' trees timed from their common steady state (estimate_trees): where that is
// the replay's own time, or where the replay's work (transfers x the groups' ranks) passes
// `budget`; else nullopt, to replay them.
std::optional<TreeEstimate> concurrent_trees(const Collective& c, const std::vector<const AlgorithmOptions*>& options,
                                             const std::vector<std::vector<int>>& groups, LinkGraph& graph,
                                             const StepCost& step, std::uint64_t budget) {
  std::vector<TreeGroup> trees;
  std::uint64_t work = 0;
  for (std::size_t k = 0; k < groups.size(); ++k) {
    trees.push_back(TreeGroup{options[k], groups[k]});
    work += tree_transfers(c, *options[k]) * groups.size() * groups[k].size();
  }
  auto tree = estimate_trees(c, trees, graph, step, work <= budget);
  // Said once a process, as for one tree past the budget (predict.cpp).
  static std::atomic<bool> said{false};
  if (tree && !tree->exact && !said.exchange(true)) {
    spdlog::warn("tree allreduce of {} B on {} concurrent groups of {} ranks that share links (and any other such in "
                 "this run): timed from their common steady state, not replayed ({:.2g} transfers x ranks, past "
                 "COLLSIM_TREE_REPLAY_BUDGET / 64: every completion would re-solve all groups' rates)",
                 c.size.count, groups.size(), c.ranks, static_cast<double>(work));
  }
  return tree;
}

}  // namespace

int ranks_per_node(const Topology& topo) {
  const int n = topo.rank_count();
  if (n == 0) return 1;
  auto host = [&topo](int r) { return topo.host_or_self(topo.ranks[static_cast<std::size_t>(r)]); };
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
  // Each rank's host (host_or_self, as topology_facts labels it) and place
  // among that host's ranks, for the groups' channel searches.
  const Topology& topo = graph.topology();
  std::map<NodeIndex, int> seen;
  for (const NodeIndex node : topo.ranks) {
    const NodeIndex host = topo.host_or_self(node);
    rank_host_.push_back(host);
    rank_place_.push_back(seen[host]++);
  }
  host_nics_ = host_nics(topo);
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

LinkGraph& GroupCollectiveCost::group_graph(const std::vector<int>& group) {
  auto& slot = group_graphs_[group];
  if (!slot) {
    slot = std::make_unique<GroupGraph>();
    const Topology& topo = graph_.topology();
    slot->topo = topo;
    slot->topo.ranks.clear();
    for (int r : group) slot->topo.ranks.push_back(topo.ranks[static_cast<std::size_t>(r)]);
    slot->graph = std::make_unique<LinkGraph>(slot->topo);
  }
  return *slot->graph;
}

std::shared_ptr<const std::optional<NcclGraph>> GroupCollectiveCost::channel_graph(const std::vector<int>& group,
                                                                                    const CollectiveRequest& request) {
  if (auto it = channel_graphs_.find(group); it != channel_graphs_.end()) return it->second;
  const Topology& topo = graph_.topology();
  // The group's shape: each rank's place on its host and which of the group's hosts that
  // is (in order of first appearance). Hosts are alike (ranks_per_node checks the count;
  // a cluster's hosts are built alike), so a group of a shape searched already takes that
  // search's channels on its own GPUs and NICs.
  std::vector<NodeIndex> shape, hosts, nodes;
  std::vector<int> host_of_rank;
  for (int r : group) {
    const auto ru = static_cast<std::size_t>(r);
    auto it = std::find(hosts.begin(), hosts.end(), rank_host_[ru]);
    if (it == hosts.end()) it = hosts.insert(hosts.end(), rank_host_[ru]);
    shape.push_back(static_cast<NodeIndex>(rank_place_[ru]));
    shape.push_back(static_cast<NodeIndex>(it - hosts.begin()));
    nodes.push_back(topo.ranks[ru]);
    host_of_rank.push_back(static_cast<int>(rank_host_[ru]));
  }
  std::shared_ptr<const std::optional<NcclGraph>> g;
  if (auto it = shaped_graphs_.find(shape); it != shaped_graphs_.end()) {
    g = std::make_shared<const std::optional<NcclGraph>>(
        *it->second ? std::optional<NcclGraph>(moved_to(**it->second, topo, nodes, host_nics_)) : std::nullopt);
  } else {
    g = std::make_shared<const std::optional<NcclGraph>>(
        search_nccl_ring(graph_, nodes, host_of_rank, nccl_search_options(request.model)));
    shaped_graphs_.emplace(std::move(shape), g);
  }
  channel_graphs_.emplace(group, g);
  return g;
}

Time GroupCollectiveCost::play_groups(CollectiveOp op, Bytes bytes, const std::vector<std::vector<int>>& groups,
                                      const std::shared_ptr<const LinkScenario>& events) {
  const Topology& topo = graph_.topology();
  const int m = static_cast<int>(groups.front().size());
  const Collective c{op, m, 0, bytes};
  CollectiveRequest request = spec_.request(op);
  request.scenario = events;
  request.exact = exact_;
  try {
    if (groups.size() == 1 && m == topo.rank_count()) {
      // The whole job: the predictor itself (with its step-per-phase fast path).
      return predict_collective(graph_, c, request).time;
    }
    const bool nccl_protocols = std::any_of(request.protocols.begin(), request.protocols.end(),
                                            [](Protocol p) { return p != Protocol::Ideal; });
    if (nccl_protocols) request.channel_graph = channel_graph(groups.front(), request);
    if (groups.size() == 1) return predict_collective(group_graph(groups.front()), c, request).time;
    // Every group runs what group 0 would run on its own (same algorithm, protocol and
    // per-step costs; the same rank count and placement), on the channels NCCL's search
    // gives each group on its own GPUs and NICs; all are played at once.
    LinkGraph& alone = group_graph(groups.front());
    const TopologyFacts facts = topology_facts(alone.topology(), request.hosts);
    std::string algorithm = request.algorithms.front();
    Protocol protocol = request.protocols.front();
    if (request.algorithms.size() > 1 || request.protocols.size() > 1) {
      CollectiveRequest healthy = request;
      healthy.scenario = nullptr;  // the choice is made on the group's own links, healthy
      healthy.choose_only = true;  // its time is the merged play's below
      const CollectivePrediction choice = predict_collective(alone, c, healthy);
      algorithm = choice.algorithm;
      protocol = choice.protocol;
    }
    // The channel graph of a group (nullptr where NCCL's does not apply or the protocol is ideal).
    const auto graph_of = [&](const std::vector<int>& group) -> const NcclGraph* {
      if (protocol == Protocol::Ideal) return nullptr;
      const auto& g = *channel_graph(group, request);
      return g ? &*g : nullptr;
    };
    const CollectiveCost cost = collective_cost(facts, c, algorithm, protocol, request.model, request.overrides, graph_of(groups.front()));
    if (cost.unusable) throw std::invalid_argument(*cost.unusable);
    // CollNet's SHARP trees are laid on one group's own fabric routes (collnet_layout.hpp);
    // groups sharing a fabric would share switches' aggregation too, which is not modelled:
    // refused rather than played over whole GPU routes.
    if (lays_sharp_trees(algorithm)) {
      throw std::invalid_argument(fmt::format(
          "{} is priced for one process group on its own: {} concurrent groups sharing the fabric's SHARP switches are "
          "not modelled",
          algorithm, groups.size()));
    }
    const Schedule one = build_schedule(algorithm, c, cost.options);
    if (one.size() == 0) return Time{};
    // Each group's options: group 0's unless NCCL's search orders this group's channels
    // otherwise. Each group's data takes its own graph's routes (pin_nccl_routes).
    std::vector<CollectiveCost> own;  // per group but group 0
    std::vector<const AlgorithmOptions*> options;
    own.reserve(groups.size());
    bool alike = true;
    for (const auto& group : groups) {
      const NcclGraph* g = graph_of(group);
      if (&group != &groups.front()) own.push_back(collective_cost(facts, c, algorithm, protocol, request.model, request.overrides, g));
      const CollectiveCost& mine = &group == &groups.front() ? cost : own.back();
      if (mine.unusable) throw std::invalid_argument(*mine.unusable);
      if (g != nullptr) pin_nccl_routes(graph_, *g, algorithm, mine.options, group);
      alike = alike && mine.options.channel_orders == cost.options.channel_orders;
      options.push_back(&mine.options);
    }
    PlayOptions play;
    play.cost = cost.step;
    play.scenario = events.get();
    // Copies that cannot meet take group 0's time: only its copy is played.
    const bool alone_suffices =
        play_alone_ && alike && !events && groups.size() > 1 && independent_copies(graph_, rank_pairs(one), groups);
    if (alone_suffices) {
      // Group 0's copy alone, predicted as `collective` predicts its ranks (fast paths included).
      ++alone_plays_;
      graph_.clear_pinned_routes();
      request.algorithms = {algorithm};
      request.protocols = {protocol};
      request.protocols_auto = false;
      const Time t = predict_collective(alone, c, request).time;
      spdlog::debug("{} {} B on {} groups of {}: {}/{}, group 0 alone (independent copies), {} ps", to_string(op), bytes.count,
                    groups.size(), m, algorithm, to_string(protocol), t.ps);
      return t;
    }
    // The groups' steps solved together where the algorithm has a phased form (the fast
    // path, replaying a step's colliding flows only), else every transfer replayed.
    const bool fast = !events && !request.exact;
    const auto phased = fast ? merge_phased(algorithm, c, options, groups, topo.rank_count()) : std::nullopt;
    std::uint64_t transfers = 0;
    Time t{};
    const std::optional<TreeEstimate> tree = fast && !phased && algorithm == kTreeAlgorithm.name
                                                 ? concurrent_trees(c, options, groups, graph_, cost.step, tree_budget_)
                                                 : std::nullopt;
    if (phased) {
      t = play_phased(*phased, graph_, play).duration + cost.base_latency;
      transfers = phased->transfers();
    } else if (tree) {
      t = tree->duration + cost.base_latency;
      transfers = tree->transfers;
    } else {
      std::vector<std::optional<Schedule>> built(groups.size());  // groups whose channels differ from group 0's
      std::vector<const Schedule*> schedules;
      for (std::size_t k = 0; k < groups.size(); ++k) {
        if (options[k]->channel_orders != cost.options.channel_orders) built[k] = build_schedule(algorithm, c, *options[k]);
        schedules.push_back(built[k] ? &*built[k] : &one);
      }
      const Schedule merged = merge(schedules, groups, topo.rank_count());
      t = play_schedule(merged, graph_, play).duration + cost.base_latency;
      transfers = merged.size();
    }
    graph_.clear_pinned_routes();
    spdlog::debug("{} {} B on {} groups of {}: {}/{}, {} channels, {} transfers {}, {} ps", to_string(op), bytes.count,
                  groups.size(), m, algorithm, to_string(protocol), cost.channels, transfers,
                  phased ? "in phased steps" : tree ? "timed from the trees' steady state" : "replayed", t.ps);
    return t;
  } catch (const std::invalid_argument& e) {
    graph_.clear_pinned_routes();
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
