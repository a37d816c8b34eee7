#include "sim/coll/predict.hpp"

#include <stdexcept>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "sim/coll/schedule_player.hpp"

namespace collsim {

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
      const Schedule s = build_schedule(algo, c, cost.options);
      PlayOptions play;
      play.cost = cost.step;
      const PlayResult r = play_schedule(s, graph, play);
      // A single rank communicates nothing: no launch either (NCCL: time 0).
      const Time t = s.size() == 0 ? Time{} : r.duration + cost.base_latency;
      spdlog::debug("{} {}/{} {} B on {} ranks: {} transfers, {} channels, {} ps", to_string(c.op), algo, to_string(p),
                    c.size.count, c.ranks, s.size(), cost.channels, t.ps);
      if (!best || t < best->time) {
        best = CollectivePrediction{c, algo, p, cost.channels, t, 0, 0};
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
