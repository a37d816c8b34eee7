// Predicts one collective on a topology: builds the schedule, plays it, and reports the
// time with nccl-tests' algbw/busbw (GB/s, 1 GB = 1e9 B).
#pragma once

#include <string>

#include "sim/algo/registry.hpp"
#include "sim/topo/link_graph.hpp"

namespace collsim {

struct CollectivePrediction {
  Collective collective;
  std::string algorithm;
  Time time;
  double algbw_gbps = 0;  // size / time, GB/s
  double busbw_gbps = 0;  // algbw x busbw_factor
};

[[nodiscard]] CollectivePrediction predict_collective(LinkGraph& graph, const Collective& c, const std::string& algo,
                                                      const AlgorithmOptions& opt = {});

}  // namespace collsim
