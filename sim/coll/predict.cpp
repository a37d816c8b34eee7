#include "sim/coll/predict.hpp"

#include <spdlog/spdlog.h>

#include "sim/coll/schedule_player.hpp"

namespace collsim {

CollectivePrediction predict_collective(LinkGraph& graph, const Collective& c, const std::string& algo,
                                        const AlgorithmOptions& opt) {
  const Schedule s = build_schedule(algo, c, opt);
  const PlayResult r = play_schedule(s, graph);
  CollectivePrediction p;
  p.collective = c;
  p.algorithm = algo;
  p.time = r.duration;
  if (r.duration.ps > 0) {
    p.algbw_gbps = static_cast<double>(c.size.count) / r.duration.seconds() / 1e9;
    p.busbw_gbps = p.algbw_gbps * busbw_factor(c.op, c.ranks);
  }
  spdlog::debug("{} {} {} B on {} ranks: {} transfers, {} ps", algo, to_string(c.op), c.size.count, c.ranks, s.size(),
                r.duration.ps);
  return p;
}

}  // namespace collsim
