#include "sim/train/sweep.hpp"

#include <algorithm>

#include "sim/coll/affine_collective_cost.hpp"

namespace collsim {

SweepResult run_sweep(const Workload& w, const ComputeModel& cm, const TopologyForRanks& topology, const SweepSpec& spec,
                      const SweepProgress& progress) {
  SweepResult result;
  const std::size_t total = spec.ranks.size() * spec.bucket_mb.size();
  std::size_t done = 0;
  // The largest bucket sets the all-reduce fit's range.
  Bytes largest{0};
  for (double mb : spec.bucket_mb) {
    DdpOptions o = spec.options;
    o.buckets.bucket_cap = bucket_cap_from_mb(mb);
    const BucketPlan plan = o.first_iteration ? construction_buckets(w, o.buckets)
                                              : rebuilt_buckets(w, w.grad_ready_order(), o.buckets);
    for (const auto& b : plan.buckets) largest = std::max(largest, b.bytes);
  }
  for (int n : spec.ranks) {
    const Topology topo = topology(n);
    LinkGraph graph(topo);
    const CommSpec comm = resolve_comm_spec(spec.comm, topo, spec.options.backend == DdpBackend::Nccl);
    CollectiveCostCache exact(graph, comm);
    std::optional<AffineCollectiveCost> affine;
    if (!spec.exact) affine.emplace(graph, comm, largest);
    const CollectiveCostFn cost = [&](CollectiveOp op, Bytes b) { return affine ? affine->time(op, b) : exact.time(op, b); };
    for (double mb : spec.bucket_mb) {
      DdpOptions o = spec.options;
      o.buckets.bucket_cap = bucket_cap_from_mb(mb);
      const DdpResult r = simulate_ddp(w, cm, cost, o);
      result.rows.push_back(SweepRow{n, mb, r.buckets.size(), r.iteration, r.comm_total, r.exposed_comm, r.overlap_percent});
      if (progress) progress(++done, total);
    }
    result.collective_plays += affine ? affine->plays() : exact.predictions();
    if (affine && affine->fitted() && !affine->affine()) result.exact_world_sizes.push_back(n);
    if (affine && !affine->fitted()) result.per_size_world_sizes.push_back(n);
  }
  for (std::size_t i = 0; i < spec.ranks.size(); ++i) {
    const auto first = result.rows.begin() + static_cast<std::ptrdiff_t>(i * spec.bucket_mb.size());
    const auto last = first + static_cast<std::ptrdiff_t>(spec.bucket_mb.size());
    // Ties go to the first (smallest listed) bucket size.
    const auto best = std::min_element(first, last, [](const SweepRow& a, const SweepRow& b) { return a.iteration < b.iteration; });
    result.best.push_back(SweepBest{best->ranks, best->bucket_mb, best->iteration, 0});
  }
  for (auto& b : result.best) {
    b.scaling_efficiency = static_cast<double>(result.best.front().iteration.ps) / static_cast<double>(b.iteration.ps);
  }
  return result;
}

}  // namespace collsim
