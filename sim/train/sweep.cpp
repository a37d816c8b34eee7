#include "sim/train/sweep.hpp"

#include <algorithm>

#include "sim/coll/affine_collective_cost.hpp"

namespace collsim {

SweepResult run_sweep(const Workload& w, const ComputeModel& cm, const TopologyForRanks& topology, const SweepSpec& spec,
                      const SweepProgress& progress) {
  SweepResult result;
  const std::size_t sizes = spec.bucket_caps.size();
  const std::size_t total = spec.ranks.size() * sizes;
  std::size_t done = 0;
  // One bucket plan per bucket size (it does not depend on the world size); the largest
  // bucket sets the all-reduce fit's range.
  std::vector<DdpOptions> options(sizes, spec.options);
  std::vector<BucketPlan> plans;
  Bytes largest{0};
  for (std::size_t i = 0; i < sizes; ++i) {
    options[i].buckets.bucket_cap = spec.bucket_caps[i];
    plans.push_back(ddp_bucket_plan(w, options[i]));
    for (const auto& b : plans.back().buckets) largest = std::max(largest, b.bytes);
  }
  for (int n : spec.ranks) {
    const Topology topo = topology(n);
    LinkGraph graph(topo);
    const CommSpec comm = resolve_comm_spec(spec.comm, topo, spec.options.backend == DdpBackend::Nccl);
    CollectiveCostCache exact(graph, comm);
    std::optional<AffineCollectiveCost> affine;
    if (!spec.exact) affine.emplace(graph, comm, largest);
    const CollectiveCostFn cost = [&](CollectiveOp op, Bytes b) { return affine ? affine->time(op, b) : exact.time(op, b); };
    for (std::size_t i = 0; i < sizes; ++i) {
      const DdpResult r = simulate_ddp(w, cm, cost, options[i], plans[i]);
      const Bytes cap = spec.bucket_caps[i];
      result.rows.push_back(SweepRow{n, cap, bucket_cap_mb_of(cap), r.buckets.size(), r.iteration, r.comm_total,
                                     r.exposed_comm, r.overlap_percent});
      if (progress) progress(++done, total);
    }
    result.collective_plays += affine ? affine->plays() : exact.predictions();
    if (affine && affine->fitted() && !affine->affine()) result.exact_world_sizes.push_back(n);
    if (affine && !affine->fitted()) result.per_size_world_sizes.push_back(n);
  }
  for (std::size_t i = 0; i < spec.ranks.size(); ++i) {
    const auto first = result.rows.begin() + static_cast<std::ptrdiff_t>(i * sizes);
    const auto last = first + static_cast<std::ptrdiff_t>(sizes);
    // Ties go to the first (smallest listed) bucket size.
    const auto best = std::min_element(first, last, [](const SweepRow& a, const SweepRow& b) { return a.iteration < b.iteration; });
    result.best.push_back(SweepBest{best->ranks, best->bucket_cap, best->bucket_mb, best->iteration, 0});
  }
  for (auto& b : result.best) {
    b.scaling_efficiency = static_cast<double>(result.best.front().iteration.ps) / static_cast<double>(b.iteration.ps);
  }
  return result;
}

}  // namespace collsim
