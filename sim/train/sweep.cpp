#include "sim/train/sweep.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "sim/coll/affine_collective_cost.hpp"
#include "sim/core/error.hpp"
#include "sim/train/gloo_cuda.hpp"
#include "sim/train/interference.hpp"

namespace collsim {

namespace {

// How one world size priced its all-reduces.
constexpr const char* kFitAffine = "affine";      // the checked affine fit
constexpr const char* kFitExact = "exact";        // the fit failed its check: every size played
constexpr const char* kFitPerSize = "per_size";   // NCCL's choice changes with the size
constexpr const char* kFitNone = "none";          // --exact: no fit tried

// One world size: every bucket size's DDP step, as JSON (times in ps, sizes in bytes).
nlohmann::json sweep_world(const Workload& w, const ComputeModel& cm, const TopologyForRanks& topology,
                           const SweepSpec& spec, const std::vector<DdpOptions>& options,
                           const std::vector<BucketPlan>& plans, Bytes largest, int n) {
  const Topology topo = topology(n);
  LinkGraph graph(topo);
  const CommSpec comm = resolve_comm_spec(spec.comm, topo, spec.options.backend == DdpBackend::Nccl);
  CollectiveCostCache exact(graph, comm);
  std::optional<AffineCollectiveCost> affine;
  bool per_size = false;
  if (!spec.exact) {
    affine.emplace(graph, comm, largest);
    // NCCL's choice changes with the size: no fit, every size is played.
    per_size = !affine->fitted();
    if (per_size) affine.reset();
  }
  if (!affine) {
    // The collectives the steps will ask for (they do not depend on the times), played up
    // front on every core: the same predictions as playing them one by one.
    std::vector<std::pair<CollectiveOp, Bytes>> wanted;
    const CollectiveCostFn record = [&wanted](CollectiveOp op, Bytes b) {
      wanted.emplace_back(op, b);
      return Time::from_us(1);
    };
    for (std::size_t i = 0; i < plans.size(); ++i) {
      DdpOptions o = options[i];
      o.world_size = n;
      (void)simulate_ddp(w, cm, record, o, plans[i]);
    }
    exact.prefetch(wanted, 0);  // every core
  }
  const CollectiveCostFn cost = with_gloo_copies(
      [&](CollectiveOp op, Bytes b) { return affine ? affine->time(op, b) : exact.time(op, b); }, spec.options.backend, cm.device);
  nlohmann::json rows = nlohmann::json::array();
  CollectiveSlowdownFn slowdown;
  if (spec.interference) slowdown = affine ? slowdown_from(*affine, cm.device) : slowdown_from(exact, cm.device);
  for (std::size_t i = 0; i < plans.size(); ++i) {
    DdpOptions o = options[i];
    o.comm_interference = slowdown;
    o.world_size = n;
    const DdpResult r = simulate_ddp(w, cm, cost, o, plans[i]);
    rows.push_back({{"buckets", r.buckets.size()},
                    {"iteration_ps", r.iteration.ps},
                    {"comm_total_ps", r.comm_total.ps},
                    {"exposed_comm_ps", r.exposed_comm.ps},
                    {"overlap_percent", r.overlap_percent}});
  }
  const char* fit = per_size ? kFitPerSize : !affine ? kFitNone : affine->affine() ? kFitAffine : kFitExact;
  return {{"rows", std::move(rows)}, {"plays", affine ? affine->plays() : exact.predictions()}, {"fit", fit}};
}

}  // namespace

std::vector<WorkItem> sweep_work_items(const SweepSpec& spec) {
  std::vector<WorkItem> items;
  for (int n : spec.ranks) items.push_back(WorkItem{fmt::format("{} ranks", n), static_cast<double>(n)});
  return items;
}

SweepResult run_sweep(const Workload& w, const ComputeModel& cm, const TopologyForRanks& topology, const SweepSpec& spec,
                      const WorkRunner& runner, const WorkOptions& run_options, WorkStats* stats) {
  SweepResult result;
  const std::size_t sizes = spec.bucket_caps.size();
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
  const WorkFn item = [&](std::size_t k) {
    return sweep_world(w, cm, topology, spec, options, plans, largest, spec.ranks[k]);
  };
  const std::vector<nlohmann::json> out = runner.run(sweep_work_items(spec), item, run_options, stats);
  try {
    for (std::size_t k = 0; k < spec.ranks.size(); ++k) {
      const int n = spec.ranks[k];
      const auto& rows = out[k].at("rows");
      if (rows.size() != sizes) throw InternalError(fmt::format("sweep: {} rows for {} bucket sizes", rows.size(), sizes));
      for (std::size_t i = 0; i < sizes; ++i) {
        const auto& r = rows[i];
        const Bytes cap = spec.bucket_caps[i];
        result.rows.push_back(SweepRow{n, cap, bucket_cap_mb_of(cap), r.at("buckets").get<std::size_t>(),
                                       Time{r.at("iteration_ps").get<std::int64_t>()},
                                       Time{r.at("comm_total_ps").get<std::int64_t>()},
                                       Time{r.at("exposed_comm_ps").get<std::int64_t>()},
                                       r.at("overlap_percent").get<double>()});
      }
      result.collective_plays += out[k].at("plays").get<std::size_t>();
      const std::string fit = out[k].at("fit").get<std::string>();
      if (fit == kFitExact) result.exact_world_sizes.push_back(n);
      if (fit == kFitPerSize) result.per_size_world_sizes.push_back(n);
    }
  } catch (const nlohmann::json::exception& e) {
    throw InternalError(fmt::format("sweep: a world size's result is malformed: {}", e.what()));
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

SweepResult run_sweep(const Workload& w, const ComputeModel& cm, const TopologyForRanks& topology, const SweepSpec& spec) {
  return run_sweep(w, cm, topology, spec, ThreadRunner{}, WorkOptions{});
}

}  // namespace collsim
