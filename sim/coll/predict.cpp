#include "sim/coll/nccl_env.hpp"
#include "sim/coll/predict.hpp"

#include <algorithm>
#include <atomic>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "sim/algo/nvls_tree.hpp"
#include "sim/algo/phased_schedule.hpp"
#include "sim/algo/tree.hpp"
#include "sim/algo/tree_passes.hpp"
#include "sim/coll/collnet_layout.hpp"
#include "sim/coll/nvls_tree_estimate.hpp"
#include "sim/coll/phased_player.hpp"
#include "sim/coll/schedule_player.hpp"
#include "sim/coll/tree_estimate.hpp"

namespace collsim {

namespace {

struct CommTime {
  Time duration;
  std::uint64_t transfers = 0;
  bool fast_path = false;
};

// Said once a process per algorithm (`said`): a DDP or plan run prices many such collectives.
void say_estimated(std::atomic<bool>& said, const std::string& algo, const Collective& c, std::uint64_t work) {
  if (said.exchange(true)) return;
  spdlog::warn("{} allreduce of {} B on {} ranks (and any other past its COLLSIM_TREE_REPLAY_BUDGET share in this run): timed "
               "from the pipeline's steady state, not replayed ({:.2g} transfers x ranks of replay); --exact replays it",
               algo, c.size.count, c.ranks, static_cast<double>(work));
}

// The fast path when the algorithm has a phased form (which replays, streamed, any phase it
// cannot solve from one step) or is the tree or NVLSTree (their steady-state estimates); else the full flow-level
// replay of every transfer.
CommTime play_collective(LinkGraph& graph, const Collective& c, const std::string& algo, const CollectiveCost& cost,
                         const CollectiveRequest& request) {
  PlayOptions play;
  play.cost = cost.step;
  play.scenario = request.scenario.get();
  if (request.rank_arrival) play.rank_arrival = *request.rank_arrival;
  if (!request.exact && !request.scenario && !request.rank_arrival) {
    if (const auto phased = phased_schedule(algo, c, cost.options)) {
      return CommTime{play_phased(*phased, graph, play).duration, phased->transfers(), true};
    }
    if (algo == kTreeAlgorithm.name) {
      // The tree timed from its steady state: always when that is the replay's own time,
      // and in place of a replay too long to wait for (tree_estimate.hpp).
      const std::uint64_t work = tree_transfers(c, cost.options) * static_cast<std::uint64_t>(c.ranks);
      const bool affordable = work <= tree_replay_budget();
      if (const auto e = estimate_tree(c, cost.options, graph, cost.step, affordable)) {
        static std::atomic<bool> said{false};
        if (!e->exact) say_estimated(said, algo, c, work);
        return CommTime{e->duration, e->transfers, true};
      }
    }
    if (algo == kNvlsTreeAlgorithm.name) {
      // NVLSTree timed from its steady state (nvls_tree_estimate.hpp) where that is the
      // replay's own time, and in place of a replay past a 64th of the tree's budget: its
      // 2 x ppn streams contend on every NIC (and on an ECMP fabric's spines), so a
      // completion re-solves all their flows, as concurrent groups' do (a 1 GiB all-reduce
      // on 1,024 GPUs of a RoCE fat tree: 2.3e9 of work, a 50 s replay, 0.1 s estimated).
      const NvlsTreePlan plan = nvls_tree_plan(c, cost.options);
      const std::uint64_t work = plan.transfers() * static_cast<std::uint64_t>(c.ranks);
      const bool affordable = work <= tree_replay_budget() / 64;
      if (const auto e = estimate_nvls_tree(c, plan, graph, cost.step, affordable)) {
        static std::atomic<bool> said{false};
        if (!e->exact) say_estimated(said, algo, c, work);
        return CommTime{e->duration, e->transfers, true};
      }
    }
  }
  // The full replay: of the schedule computed on demand where the algorithm has that form
  // (the same DAG, without storing it), else of the built schedule.
  if (const auto generated = generated_schedule(algo, c, cost.options)) {
    return CommTime{play_generated(*generated, graph, play).duration, generated->size(), false};
  }
  const Schedule s = build_schedule(algo, c, cost.options);
  const PlayResult r = play_schedule(s, graph, play);
  return CommTime{r.duration, s.size(), false};
}

// The channels of `g` a schedule under `options` runs.
int channels_used(const NcclGraph& g, const AlgorithmOptions& options) {
  return std::min({options.channels, static_cast<int>(options.channel_orders.size()),
                   static_cast<int>(g.per_channel.size())});
}

// The rank of `graph` that runs local GPU `local` of host `h` of `g`.
int job_rank_of(const NcclGraph& g, int h, std::size_t local, std::span<const int> job_rank) {
  const int r = g.host[static_cast<std::size_t>(h)].ranks[local];
  return job_rank.empty() ? r : job_rank[static_cast<std::size_t>(r)];
}

// A ring channel's hop from one host's exit GPU to the next host's entry GPU goes through
// the channel's NIC on both hosts, not through whichever NICs the two GPUs own.
void pin_ring_hops(LinkGraph& graph, const NcclGraph& g, const AlgorithmOptions& options,
                   std::span<const int> job_rank) {
  if (g.hosts < 2) return;
  const int used = channels_used(g, options);
  for (int ch = 0; ch < used; ++ch) {
    const NcclChannel& channel = g.per_channel[static_cast<std::size_t>(ch)];
    for (int h = 0; h < g.hosts; ++h) {
      const int next = (h + 1) % g.hosts;
      auto r = channel_hop_route(graph, g, ch, h, next);
      if (!r) continue;  // no path through that NIC: the default route stands
      graph.pin_route(job_rank_of(g, h, static_cast<std::size_t>(channel.order.back()), job_rank),
                      job_rank_of(g, next, static_cast<std::size_t>(channel.order.front()), job_rank), std::move(*r));
    }
  }
}

// Where `g` stages network data in host memory, a tree's hops between the heads of its
// chains go through the channel's NIC and the heads' CPUs (both trees); without staging
// they keep their routes.
void pin_tree_hops(LinkGraph& graph, const NcclGraph& g, const AlgorithmOptions& options,
                   std::span<const int> job_rank) {
  const bool staged = std::any_of(g.staged.begin(), g.staged.end(),
                                  [](const auto& row) { return std::find(row.begin(), row.end(), true) != row.end(); });
  if (g.hosts < 2 || !staged) return;
  const int used = channels_used(g, options);
  for (bool mirror : {false, true}) {
    const std::vector<int> parent = nccl_btree_parents(g.hosts, mirror);
    for (int ch = 0; ch < used; ++ch) {
      const auto head = static_cast<std::size_t>(g.per_channel[static_cast<std::size_t>(ch)].order.front());
      for (int h = 0; h < g.hosts; ++h) {
        const int p = parent[static_cast<std::size_t>(h)];
        if (p < 0) continue;
        for (auto [from, to] : {std::pair{h, p}, std::pair{p, h}}) {
          auto r = tree_hop_route(graph, g, ch, from, to);
          if (!r) continue;
          graph.pin_route(job_rank_of(g, from, head, job_rank), job_rank_of(g, to, head, job_rank), std::move(*r));
        }
      }
    }
  }
}

// GPUs of one host without P2P between them (g.shm) exchange data through the receiver's
// CPU, whatever the algorithm, on every host of `g`.
void pin_shm_routes(LinkGraph& graph, const NcclGraph& g, std::span<const int> job_rank) {
  for (std::size_t b = 0; b < g.shm.size(); ++b) {
    for (int h = 0; h < g.hosts; ++h) {
      const NcclHost& host = g.host[static_cast<std::size_t>(h)];
      std::optional<NodeIndex> cpu;  // the receiver's, looked up once for all its senders
      for (std::size_t a = 0; a < g.shm.size(); ++a) {
        if (!g.shm[a][b]) continue;
        if (!cpu) cpu = local_cpu(graph, host.gpus[b]);
        if (!cpu) break;
        auto r = join_routes({graph.node_route(host.gpus[a], *cpu), graph.node_route(*cpu, host.gpus[b])});
        if (r) graph.pin_route(job_rank_of(g, h, a, job_rank), job_rank_of(g, h, b, job_rank), std::move(*r));
      }
    }
  }
}

}  // namespace

void pin_nccl_routes(LinkGraph& graph, const NcclGraph& g, std::string_view algo, const AlgorithmOptions& options,
                     std::span<const int> job_rank) {
  if (!options.channel_orders.empty()) {
    const NcclAlgorithm a = nccl_counterpart(algo);
    if (a == NcclAlgorithm::Ring) pin_ring_hops(graph, g, options, job_rank);
    if (a == NcclAlgorithm::Tree) pin_tree_hops(graph, g, options, job_rank);
  }
  pin_shm_routes(graph, g, job_rank);
}

// CollNet's layout on this topology into cost.options (or, where it cannot run, the reason
// into cost.unusable); the head-to-head routes its spans index, to pin while it plays.
std::vector<CollNetPin> attach_collnet(LinkGraph& graph, const NcclGraph* g, const std::string& algo, CollectiveCost& cost) {
  if (!lays_sharp_trees(algo) || cost.unusable || g == nullptr) return {};
  std::string why;
  auto plan = collnet_plan(graph, *g, nccl_counterpart(algo) == NcclAlgorithm::CollNetChain, cost.channels, &why);
  if (!plan) {
    cost.unusable = fmt::format("{} cannot run on these hosts: {}", algo, why);
    return {};
  }
  cost.options.collnet = plan->layout;
  return std::move(plan->pins);
}

void pin_collnet(LinkGraph& graph, const std::vector<CollNetPin>& pins) {
  for (const CollNetPin& p : pins) graph.pin_route(p.src, p.dst, p.route);
}

CollectivePrediction predict_collective(LinkGraph& graph, const Collective& c, const CollectiveRequest& request) {
  const TopologyFacts facts = topology_facts(graph.topology(), request.hosts);
  // NCCL's channel graph, searched once and only when an NCCL protocol runs ring or tree
  // (or the caller's, already searched: not copied).
  std::shared_ptr<const std::optional<NcclGraph>> nccl = request.channel_graph;
  auto nccl_graph = [&]() -> const NcclGraph* {
    if (!nccl) nccl = std::make_shared<const std::optional<NcclGraph>>(
          search_nccl_ring(graph, facts.host_of_rank, nccl_search_options(request.model)));
    return *nccl ? &**nccl : nullptr;
  };
  std::optional<CollectivePrediction> best;
  std::string why;
  bool why_simple = false;
  struct Candidate {
    const std::string* algo;
    Protocol p;
    CollectiveCost cost;
    std::vector<CollNetPin> pins;
  };
  std::vector<Candidate> candidates;
  const std::vector<Protocol> ideal_only{Protocol::Ideal};
  for (const std::string& algo : request.algorithms) {
    const bool what_if = request.protocols_auto && !nccl_algorithm(algo);
    for (Protocol p : what_if ? ideal_only : request.protocols) {
      // collective_cost decides which algorithms take the graph (channel_orders set).
      const NcclGraph* channel_graph = p != Protocol::Ideal ? nccl_graph() : nullptr;
      CollectiveCost cost =
          candidate_cost(facts, c, algo, p, request.model, request.overrides, channel_graph, request.protocols_auto);
      std::vector<CollNetPin> pins = attach_collnet(graph, channel_graph, algo, cost);
      if (cost.unusable) {
        // The first reason, but a Simple candidate's over another protocol's: Simple runs
        // wherever an algorithm runs at all, so its reason is the one that says why not.
        if (why.empty() || (p == Protocol::Simple && !why_simple)) {
          why = *cost.unusable;
          why_simple = p == Protocol::Simple;
        }
        continue;
      }
      candidates.push_back(Candidate{&algo, p, std::move(cost), std::move(pins)});
    }
  }
  // Under NCCL's protocols NCCL itself chooses between ring and tree, by its tuning model:
  // only that choice is played, beside the candidates the model does not price (nvls,
  // collsim's other algorithms), and the fastest of those plays wins.
  const bool nccl_choice = request.nccl_selection && candidates.size() > 1 &&
                           std::none_of(request.protocols.begin(), request.protocols.end(),
                                        [](Protocol p) { return p == Protocol::Ideal; });
  // (Ideal what-if candidates of non-NCCL algorithms are not priced by NCCL's model: they
  // are played beside NCCL's pick.)
  std::vector<bool> play(candidates.size(), true);
  if (nccl_choice) {
    std::optional<std::pair<Time, std::size_t>> pick;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      const Candidate& k = candidates[i];
      const auto t = nccl_model_time(facts, c, *k.algo, k.p, k.cost, nccl_graph());
      if (!t) continue;
      play[i] = false;
      if (!pick || *t < pick->first) pick = std::make_pair(*t, i);
    }
    if (pick) play[pick->second] = true;
  }
  if (request.choose_only && std::count(play.begin(), play.end(), true) == 1) {
    const std::size_t i = static_cast<std::size_t>(std::find(play.begin(), play.end(), true) - play.begin());
    return CollectivePrediction{c, *candidates[i].algo, candidates[i].p, candidates[i].cost.channels, Time{}, false, 0, 0};
  }
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (!play[i]) continue;
    const std::string& algo = *candidates[i].algo;
    const Protocol p = candidates[i].p;
    const CollectiveCost& cost = candidates[i].cost;
    // The data takes the routes of NCCL's channels and transports (channel_orders are set
    // only with an NCCL protocol's graph).
    if (p != Protocol::Ideal && nccl_graph() != nullptr) pin_nccl_routes(graph, *nccl_graph(), algo, cost.options);
    pin_collnet(graph, candidates[i].pins);
    const CommTime comm = play_collective(graph, c, algo, cost, request);
    graph.clear_pinned_routes();
    // A single rank communicates nothing: no launch either (NCCL: time 0).
    Time t = comm.transfers == 0 ? Time{} : comm.duration + cost.base_latency;
    // Operations issued back to back run no faster than their thread launches them.
    if (p != Protocol::Ideal && t.ps > 0) t = std::max(t, request.model.launch_overhead * request.gpus_per_thread);
    spdlog::debug("{} {}/{} {} B on {} ranks: {} transfers ({}), {} channels, {} ps", to_string(c.op), algo, to_string(p),
                  c.size.count, c.ranks, comm.transfers, comm.fast_path ? "fast path" : "full replay", cost.channels, t.ps);
    if (!best || t < best->time) best = CollectivePrediction{c, algo, p, cost.channels, t, comm.fast_path, 0, 0};
  }
  if (!best) throw std::invalid_argument(why.empty() ? "no algorithm/protocol candidate" : why);
  if (best->time.ps > 0) {
    best->algbw_gbps = static_cast<double>(c.size.count) / best->time.seconds() / 1e9;
    best->busbw_gbps = best->algbw_gbps * busbw_factor(c.op, c.ranks);
  }
  return *best;
}

CollectiveReplay replay_collective(LinkGraph& graph, const CollectivePrediction& prediction,
                                   const CollectiveRequest& request) {
  const Collective& c = prediction.collective;
  const std::string& algo = prediction.algorithm;
  const TopologyFacts facts = topology_facts(graph.topology(), request.hosts);
  std::optional<NcclGraph> channel_graph;
  if (prediction.protocol != Protocol::Ideal) channel_graph = search_nccl_ring(graph, facts.host_of_rank, nccl_search_options(request.model));
  CollectiveCost cost = collective_cost(facts, c, algo, prediction.protocol, request.model, request.overrides,
                                        channel_graph ? &*channel_graph : nullptr);
  const std::vector<CollNetPin> pins = attach_collnet(graph, channel_graph ? &*channel_graph : nullptr, algo, cost);
  if (cost.unusable) throw std::invalid_argument(*cost.unusable);
  if (channel_graph) pin_nccl_routes(graph, *channel_graph, algo, cost.options);
  pin_collnet(graph, pins);
  Schedule s = build_schedule(algo, c, cost.options);
  PlayOptions play;
  play.cost = cost.step;
  play.record_timings = true;
  play.scenario = request.scenario.get();
  if (request.rank_arrival) play.rank_arrival = *request.rank_arrival;
  PlayResult r = play_schedule(s, graph, play);
  graph.clear_pinned_routes();
  return CollectiveReplay{std::move(s), std::move(r.timings), r.duration, cost.base_latency};
}

CollectivePrediction predict_collective(LinkGraph& graph, const Collective& c, const std::string& algo) {
  CollectiveRequest r;
  r.algorithms = {algo};
  return predict_collective(graph, c, r);
}

}  // namespace collsim
