#include "sim/cli/schedule_proofs.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "sim/algo/registry.hpp"
#include "sim/algo/symbolic_executor.hpp"
#include "sim/coll/topology_facts.hpp"
#include "sim/core/error.hpp"

namespace collsim::cli {

std::vector<ScheduleProof> prove_schedules(const Topology& topo, CollectiveCostCache& cache,
                                           const std::vector<std::pair<CollectiveOp, Bytes>>& collectives) {
  std::vector<ScheduleProof> proofs;
  std::vector<std::pair<CollectiveOp, std::string>> proved;
  const int ranks = topo.rank_count();
  AlgorithmOptions opt;
  opt.host_of_rank = topology_facts(topo).host_of_rank;
  for (const auto& [op, bytes] : collectives) {
    (void)cache.time(op, bytes);  // the choice is made (or looked up) here
    const auto p = cache.prediction(op, bytes);
    if (!p || std::find(proved.begin(), proved.end(), std::make_pair(op, p->algorithm)) != proved.end()) continue;
    proved.emplace_back(op, p->algorithm);
    opt.channels = p->channels;
    const Schedule s = build_schedule(p->algorithm, Collective{op, ranks, 0, Bytes{1 << 20}}, opt);
    const Verification v = verify_schedule(s);
    if (!v.ok) {
      throw InternalError(fmt::format("{} {} on {} ranks failed verification: {}", p->algorithm, to_string(op), ranks, v.error));
    }
    // All-reduce schedules keep their plain name; other operations say which.
    const std::string label = op == CollectiveOp::AllReduce ? p->algorithm : fmt::format("{} {}", p->algorithm, to_string(op));
    proofs.push_back({label, ranks, v.transfers});
  }
  return proofs;
}

}  // namespace collsim::cli
