#include "sim/cli/sharding_options.hpp"

#include <fstream>
#include <iostream>
#include <memory>

#include <sstream>

#include <fmt/format.h>

#include "sim/algo/registry.hpp"
#include "sim/cli/validators.hpp"
#include "sim/cli/schedule_proofs.hpp"
#include "sim/coll/collective_cost.hpp"
#include "sim/coll/group_collective_cost.hpp"
#include "sim/coll/link_scenario.hpp"
#include "sim/core/atomic_file.hpp"
#include "sim/core/error.hpp"
#include "sim/core/text.hpp"
#include "sim/report/sharded_report.hpp"
#include "sim/report/trace_writer.hpp"
#include "sim/train/eventful_step.hpp"
#include "sim/train/host_link.hpp"
#include "sim/train/sharded_timeline.hpp"

namespace collsim::cli {

void add_sharding_options(CLI::App* cmd, ShardingArgs& a) {
  cmd->add_option("--sharding", a.sharding,
                  "ddp, zero1, zero2, zero3, fsdp_full_shard, fsdp_shard_grad_op or fsdp_hybrid_shard")
      ->check(CLI::IsMember(enum_names<Sharding>()))
      ->capture_default_str();
  cmd->add_option("--backward-prefetch", a.backward_prefetch, "FSDP backward prefetch: pre, post or none")
      ->check(CLI::IsMember(enum_names<BackwardPrefetch>()))
      ->capture_default_str();
  cmd->add_flag("--forward-prefetch", a.forward_prefetch, "FSDP forward_prefetch=True");
  cmd->add_option("--all-gather-limit", a.all_gather_limit, "FSDP all-gathers in flight (limit_all_gathers; 0: no limit)")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  cmd->add_option("--ranks-per-node", a.ranks_per_node, "HYBRID_SHARD shard group size (default: the topology's)");
  cmd->add_option("--reduce-bucket-mb", a.reduce_bucket_mb, "ZeRO-1/2 reduce bucket, MiB (default: DeepSpeed's 5e8 elements)")
      ->check(bucket_mb_check());
  cmd->add_option("--min-unit-params", a.min_unit_params,
                  "FSDP units by size (size_based_auto_wrap_policy) instead of transformer blocks")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 50));
  cmd->add_option("--precision", a.precision,
                  "Model-state bytes: adam_mixed (2+2+12), adam_fp32 (4+4+8), sgd_momentum_fp32 (4+4+4); "
                  "adam-mixed, adam-fp32 and sgd-fp32 are the same")
      ->check(vocabulary([](std::string_view s) { return precision_preset_from(s).has_value(); },
                         fmt::format("one of: {}", fmt::join(enum_names<PrecisionPreset>(), ", "))))
      ->capture_default_str();
  cmd->add_flag("--offload-optimizer", a.offload_optimizer,
                "ZeRO-Offload (zero1/zero2/zero3): gradient shards to host memory as they are reduced, the optimizer on "
                "the CPU at the host's DRAM rate, the updated shard back");
}

ShardingOptions make_sharding_options(const ShardingArgs& a, const DdpArgs& ddp, int default_ranks_per_node) {
  ShardingOptions o;
  // The names were checked while parsing (the options' validators).
  o.strategy = enum_from<Sharding>(a.sharding).value_or(Sharding::Ddp);
  const DdpArgs plain;
  const std::vector<std::pair<const char*, bool>> ddp_only{
      {"--hook", ddp.hook != plain.hook},
      {"--backend", ddp.backend != plain.backend},
      {"--gradient-as-bucket-view", ddp.gradient_as_bucket_view},
      {"--no-overlap", ddp.no_overlap},
      {"--find-unused-parameters", ddp.find_unused_parameters},
      {"--static-graph", ddp.static_graph},
      {"--iteration", ddp.iteration != plain.iteration},
      {"--comm-slowdown", ddp.comm_slowdown.has_value()},
      {"--cuda-graph", ddp.cuda_graph}};
  for (const auto& [flag, set] : ddp_only) {
    if (set) throw ConfigError(flag, "", a.sharding, "--sharding ddp (this flag is a DDP setting)");
  }
  o.backward_prefetch = enum_from<BackwardPrefetch>(a.backward_prefetch).value_or(BackwardPrefetch::Pre);
  o.forward_prefetch = a.forward_prefetch;
  o.all_gather_limit = a.all_gather_limit;
  o.ranks_per_node = a.ranks_per_node.value_or(default_ranks_per_node);
  if (a.reduce_bucket_mb) o.reduce_bucket_bytes = bucket_cap_option("--reduce-bucket-mb", *a.reduce_bucket_mb);
  if (a.min_unit_params) {
    o.unit_policy = UnitPolicy::MinParams;
    o.min_unit_params = *a.min_unit_params;
  }
  o.precision = state_precision(precision_preset_from(a.precision).value_or(PrecisionPreset::AdamMixed));
  o.accumulate = ddp.accumulate;
  o.offload_optimizer = a.offload_optimizer;
  if (o.offload_optimizer && o.strategy != Sharding::Zero1 && o.strategy != Sharding::Zero2 && o.strategy != Sharding::Zero3) {
    throw ConfigError("--offload-optimizer", "", a.sharding,
                      "--sharding zero1, zero2 or zero3 (DeepSpeed's offload_optimizer; FSDP's CPU offload also moves the "
                      "parameters, which collsim does not model)");
  }
  return o;
}

namespace {

// One membership of an elastic sharded run: its topology, links and collective costs.
struct ShardedJob {
  Topology topo;
  std::unique_ptr<LinkGraph> graph;
  std::unique_ptr<CollectiveCostCache> world;  // the whole job's collectives (proofs)
  std::unique_ptr<CollectiveCostCache> state;  // the rebuild's broadcast and all-to-all, NCCL's choice
};

// The sharded run across `e`'s changes of membership: each membership's step on its ranks,
// its schedules proved, and the rebuilds (the replicated state broadcast, the sharded
// state re-sharded).
ElasticResult run_sharded_elastic(const ElasticArgs& e, const CommSpec& requested, const ShardingOptions& o,
                                  const Workload& w, const DdpArgs& ddp, int ranks) {
  const MembershipFn at = [&](int r) {
    if (r % o.ranks_per_node != 0) {
      throw ConfigError("--membership", "", std::to_string(r),
                        fmt::format("rank counts that are whole nodes of {} ranks (HYBRID_SHARD's shard groups)", o.ranks_per_node));
    }
    auto job = std::make_shared<ShardedJob>();
    job->topo = e.topology_at(r);
    job->graph = std::make_unique<LinkGraph>(job->topo);
    const CommSpec comm = resolve_comm_spec(requested, job->topo, true);
    CommSpec any = comm;
    any.algorithms = "auto";  // an all-to-all whatever --algo lists
    job->world = std::make_unique<CollectiveCostCache>(*job->graph, comm);
    job->state = std::make_unique<CollectiveCostCache>(*job->graph, resolve_comm_spec(any, job->topo, true));
    GroupCollectiveCost cost(*job->graph, comm, o.ranks_per_node);
    const ShardedResult step = simulate_sharded(w, compute_model_option(ddp, w, job->topo), cost.function(), o, r);
    std::vector<std::pair<CollectiveOp, Bytes>> collectives;
    for (const CommTask& t : step.program.comm) {
      if (const auto op = enum_from<CollectiveOp>(t.category)) collectives.emplace_back(*op, t.bytes);
    }
    MembershipModel m;
    m.step = ElasticStep{step.iteration, step.exposed_comm};
    m.cost = [job](CollectiveOp op, Bytes b) { return job->state->time(op, b); };
    m.proofs = prove_schedules(job->topo, *job->world, collectives);
    return m;
  };
  return simulate_elastic(sharded_model_state(w, o), e.steps, ranks, e.max_ranks, e.changes, e.costs, at);
}

}  // namespace

void run_sharded(const ShardingArgs& a, const DdpArgs& ddp, const Topology& topo, ReportOutput& output, OutputFormat format,
                 const std::string& trace, const StepConditions& conditions, const std::optional<Calibration>& cal) {
  const StragglerSpec& stragglers = conditions.stragglers;
  const std::optional<ElasticArgs>& elastic = conditions.elastic;
  const CommSpec requested = comm_spec_option(ddp, cal);
  for (CollectiveOp op : {CollectiveOp::AllGather, CollectiveOp::ReduceScatter, CollectiveOp::AllReduce}) {
    if (requested.request(op).algorithms.empty()) {
      throw ConfigError("--algo", "", in_quotes(requested.algorithms),
                        fmt::format("algorithms with all-gather, reduce-scatter and all-reduce: auto, or from {}",
                                    fmt::join(algorithm_names(), ", ")));
    }
  }
  // HYBRID_SHARD: the topology's hosts give the node size unless --ranks-per-node says
  // otherwise; the other strategies use only the whole job's group.
  const bool hybrid = enum_from<Sharding>(a.sharding) == Sharding::FsdpHybridShard;
  if (!hybrid && a.ranks_per_node) {
    throw ConfigError("--ranks-per-node", "", std::to_string(*a.ranks_per_node), "--sharding fsdp_hybrid_shard");
  }
  const int per_node = !hybrid ? 1 : a.ranks_per_node ? *a.ranks_per_node : ranks_per_node(topo);
  ShardingOptions o = make_sharding_options(a, ddp, per_node);
  const Workload w = load_workload_option(ddp.workload);
  const ComputeModel cm = compute_model_option(ddp, w, topo);
  LinkGraph graph(topo);
  const int ranks = topo.rank_count();
  if (o.offload_optimizer) {
    const std::optional<HostLink> link = host_link_of(graph, 0);
    if (!link) {
      throw ConfigError("--offload-optimizer", "", a.sharding,
                        fmt::format("a topology with a GPU-to-host (PCIe) path to offload over ({} has none)", topo.source));
    }
    if (link->memory.bytes_per_s <= 0) {
      throw ConfigError("--offload-optimizer", "", a.sharding,
                        fmt::format("a topology whose cpu nodes give memory_bandwidth, the DRAM rate the offloaded "
                                    "optimizer runs at ({} gives none for the CPU nearest rank 0)",
                                    topo.source));
    }
    o.host_link = *link;
  }
  if (o.ranks_per_node < 1 || ranks % o.ranks_per_node != 0) {
    throw ConfigError("--ranks-per-node", "", std::to_string(o.ranks_per_node), fmt::format("a divisor of the {} ranks", ranks));
  }
  // Sharded jobs run on NCCL (torch's FSDP/ZeRO): --backend gloo is a DDP option.
  const CommSpec comm = resolve_comm_spec(requested, topo, true);
  o.host = host_costs_option(ddp, cm, comm);
  GroupCollectiveCost cost(graph, comm, o.ranks_per_node);
  ShardedReport rep;
  if (stragglers.active()) {
    ShardedStragglers sr = simulate_sharded_stragglers(w, cm, cost.function(), o, ranks, stragglers);
    rep.result = std::move(sr.first);
    rep.stragglers = std::move(static_cast<StragglerResult&>(sr));
    rep.straggler_seed = stragglers.seed;
    rep.jitter_sigma = stragglers.jitter_sigma;
  } else {
    rep.result = simulate_sharded(w, cm, cost.function(), o, ranks);
  }
  if (!conditions.scenario.empty()) {
    // Each collective priced again where it starts, with the events it meets.
    EventfulStep step(std::make_shared<const LinkScenario>(load_link_scenario(conditions.scenario, topo)));
    const GroupCostFn timed = [&](CollectiveOp op, Bytes bytes, CommGroup group) {
      return step.cost(cost.time(op, bytes, group),
                       [&](const auto& seen) { return cost.time_during(op, bytes, group, seen); });
    };
    const Time healthy = rep.result.iteration;
    do {
      rep.result = simulate_sharded(w, cm, timed, o, ranks);
    } while (!step.settled(rep.result.program, rep.result.timeline));
    rep.events = step.summary(rep.result.program, rep.result.timeline, healthy);
    rep.events->scenario = conditions.scenario;
  }
  if (elastic) rep.elastic = run_sharded_elastic(*elastic, requested, o, w, ddp, ranks);
  rep.workload = w.name;
  rep.topology = topo.name;
  rep.device = cm.device.name;
  rep.algorithm = comm.label();
  rep.strategy = a.sharding;
  rep.ranks = ranks;
  rep.ranks_per_node = hybrid ? o.ranks_per_node : 0;
  rep.accumulate = o.accumulate;
  if (!trace.empty()) {
    std::ostringstream out;
    write_chrome_trace(out, rep.result, fmt::format("collsim ddp --sharding {} {} on {} ({} ranks)", a.sharding, w.name,
                                                    topo.name, ranks));
    write_file_atomically(trace, out.str(), "--trace");
  }
  output.put(format, sharded_report_views(rep));
}

}  // namespace collsim::cli
