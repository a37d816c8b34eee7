#include "sim/coll/predict.hpp"

#include <stdexcept>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "sim/algo/phased_schedule.hpp"
#include "sim/coll/phased_player.hpp"
#include "sim/coll/schedule_player.hpp"

namespace collsim {

namespace {

struct CommTime {
  Time duration;
  std::uint64_t transfers = 0;
  bool fast_path = false;
};

// The fast path when the algorithm has a phased form and every step is uniform; else
// the full flow-level replay of every transfer.
CommTime play_collective(LinkGraph& graph, const Collective& c, const std::string& algo, const CollectiveCost& cost,
                         bool exact) {
  PlayOptions play;
  play.cost = cost.step;
  if (!exact) {
    if (const auto phased = phased_schedule(algo, c, cost.options)) {
      const PhasedResult fast = play_phased(*phased, graph, play);
      if (fast.exact) return CommTime{fast.duration, phased->transfers(), true};
      spdlog::debug("{}: fast path not exact ({}), replaying every transfer", algo, fast.reason);
    }
  }
  const Schedule s = build_schedule(algo, c, cost.options);
  const PlayResult r = play_schedule(s, graph, play);
  return CommTime{r.duration, s.size(), false};
}

}  // namespace

CollectivePrediction predict_collective(LinkGraph& graph, const Collective& c, const CollectiveRequest& request) {
  const TopologyFacts facts = topology_facts(graph.topology(), request.hosts);
  std::optional<CollectivePrediction> best;
  std::string why;
  for (const std::string& algo : request.algorithms) {
    for (Protocol p : request.protocols) {
      const CollectiveCost cost = collective_cost(facts, c, algo, p, request.model, request.overrides);
      if (cost.unusable) {
        if (why.empty()) why = *cost.unusable;
        continue;
      }
      const CommTime comm = play_collective(graph, c, algo, cost, request.exact);
      // A single rank communicates nothing: no launch either (NCCL: time 0).
      const Time t = comm.transfers == 0 ? Time{} : comm.duration + cost.base_latency;
      spdlog::debug("{} {}/{} {} B on {} ranks: {} transfers ({}), {} channels, {} ps", to_string(c.op), algo,
                    to_string(p), c.size.count, c.ranks, comm.transfers, comm.fast_path ? "fast path" : "full replay",
                    cost.channels, t.ps);
      if (!best || t < best->time) {
        best = CollectivePrediction{c, algo, p, cost.channels, t, comm.fast_path, 0, 0};
      }
    }
  }
  if (!best) throw std::invalid_argument(why.empty() ? "no algorithm/protocol candidate" : why);
  if (best->time.ps > 0) {
    best->algbw_gbps = static_cast<double>(c.size.count) / best->time.seconds() / 1e9;
    best->busbw_gbps = best->algbw_gbps * busbw_factor(c.op, c.ranks);
  }
  return *best;
}

CollectivePrediction predict_collective(LinkGraph& graph, const Collective& c, const std::string& algo) {
  CollectiveRequest r;
  r.algorithms = {algo};
  return predict_collective(graph, c, r);
}

}  // namespace collsim
