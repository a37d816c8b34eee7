#include "sim/cli/sharding_options.hpp"

#include <fstream>
#include <iostream>

#include <sstream>

#include <fmt/format.h>

#include "sim/algo/registry.hpp"
#include "sim/coll/group_collective_cost.hpp"
#include "sim/core/atomic_file.hpp"
#include "sim/core/error.hpp"
#include "sim/report/sharded_report.hpp"
#include "sim/report/trace_writer.hpp"
#include "sim/train/sharded_timeline.hpp"

namespace collsim::cli {

void add_sharding_options(CLI::App* cmd, ShardingArgs& a) {
  cmd->add_option("--sharding", a.sharding,
                  "ddp, zero1, zero2, zero3, fsdp_full_shard, fsdp_shard_grad_op or fsdp_hybrid_shard")
      ->capture_default_str();
  cmd->add_option("--backward-prefetch", a.backward_prefetch, "FSDP backward prefetch: pre, post or none")
      ->capture_default_str();
  cmd->add_flag("--forward-prefetch", a.forward_prefetch, "FSDP forward_prefetch=True");
  cmd->add_option("--all-gather-limit", a.all_gather_limit, "FSDP all-gathers in flight (limit_all_gathers; 0: no limit)")
      ->capture_default_str();
  cmd->add_option("--ranks-per-node", a.ranks_per_node, "HYBRID_SHARD shard group size (default: the topology's)");
  cmd->add_option("--reduce-bucket-mb", a.reduce_bucket_mb, "ZeRO-1/2 reduce bucket, MiB (default: DeepSpeed's 5e8 elements)");
  cmd->add_option("--min-unit-params", a.min_unit_params,
                  "FSDP units by size (size_based_auto_wrap_policy) instead of transformer blocks");
  cmd->add_option("--precision", a.precision, "Model-state bytes: adam-mixed (2+2+12), adam-fp32 (4+4+8), sgd-fp32 (4+4+4)")
      ->capture_default_str();
}

ShardingOptions make_sharding_options(const ShardingArgs& a, const DdpArgs& ddp, int default_ranks_per_node) {
  ShardingOptions o;
  const auto s = sharding_from(a.sharding);
  if (!s) throw ConfigError("--sharding", "", fmt::format("\"{}\"", a.sharding), fmt::format("one of: {}", fmt::join(sharding_names(), ", ")));
  o.strategy = *s;
  const DdpArgs plain;
  const std::vector<std::pair<const char*, bool>> ddp_only{
      {"--hook", ddp.hook != plain.hook},
      {"--backend", ddp.backend != plain.backend},
      {"--gradient-as-bucket-view", ddp.gradient_as_bucket_view},
      {"--no-overlap", ddp.no_overlap},
      {"--find-unused-parameters", ddp.find_unused_parameters},
      {"--static-graph", ddp.static_graph},
      {"--iteration", ddp.iteration != plain.iteration},
      {"--comm-slowdown", ddp.comm_slowdown.has_value()}};
  for (const auto& [flag, set] : ddp_only) {
    if (set) throw ConfigError(flag, "", a.sharding, "--sharding ddp (this flag is a DDP setting)");
  }
  if (a.backward_prefetch == "pre") {
    o.backward_prefetch = BackwardPrefetch::Pre;
  } else if (a.backward_prefetch == "post") {
    o.backward_prefetch = BackwardPrefetch::Post;
  } else if (a.backward_prefetch == "none") {
    o.backward_prefetch = BackwardPrefetch::None;
  } else {
    throw ConfigError("--backward-prefetch", "", fmt::format("\"{}\"", a.backward_prefetch), "pre, post or none");
  }
  o.forward_prefetch = a.forward_prefetch;
  if (a.all_gather_limit < 0 || a.all_gather_limit > 1000) {
    throw ConfigError("--all-gather-limit", "", std::to_string(a.all_gather_limit), "a count from 0 (no limit) to 1000");
  }
  o.all_gather_limit = a.all_gather_limit;
  o.ranks_per_node = a.ranks_per_node.value_or(default_ranks_per_node);
  if (a.reduce_bucket_mb) {
    o.reduce_bucket_bytes = bucket_cap_option("--reduce-bucket-mb", *a.reduce_bucket_mb).count;
  }
  if (a.min_unit_params) {
    if (*a.min_unit_params < 1) throw ConfigError("--min-unit-params", "", std::to_string(*a.min_unit_params), "a parameter count >= 1");
    o.unit_policy = UnitPolicy::MinParams;
    o.min_unit_params = *a.min_unit_params;
  }
  if (a.precision == "adam-mixed") {
    o.precision = adam_mixed_precision();
  } else if (a.precision == "adam-fp32") {
    o.precision = adam_fp32();
  } else if (a.precision == "sgd-fp32") {
    o.precision = sgd_momentum_fp32();
  } else {
    throw ConfigError("--precision", "", fmt::format("\"{}\"", a.precision), "adam-mixed, adam-fp32 or sgd-fp32");
  }
  if (ddp.accumulate < 1 || ddp.accumulate > 1000) {
    throw ConfigError("--accumulate", "", std::to_string(ddp.accumulate), "a micro-step count from 1 to 1000");
  }
  o.accumulate = ddp.accumulate;
  return o;
}

void run_sharded(const ShardingArgs& a, const DdpArgs& ddp, const Topology& topo, ReportOutput& output, OutputFormat format,
                 const std::string& trace, const std::optional<ProtocolModel>& model) {
  const CommSpec requested = comm_spec_option(ddp, model);
  for (CollectiveOp op : {CollectiveOp::AllGather, CollectiveOp::ReduceScatter, CollectiveOp::AllReduce}) {
    if (requested.request(op).algorithms.empty()) {
      throw ConfigError("--algo", "", fmt::format("\"{}\"", ddp.algo),
                        fmt::format("algorithms with all-gather, reduce-scatter and all-reduce: auto, or from {}",
                                    fmt::join(algorithm_names(), ", ")));
    }
  }
  // HYBRID_SHARD: the topology's hosts give the node size unless --ranks-per-node says
  // otherwise; the other strategies use only the whole job's group.
  const bool hybrid = a.sharding == "fsdp_hybrid_shard";
  if (!hybrid && a.ranks_per_node) {
    throw ConfigError("--ranks-per-node", "", std::to_string(*a.ranks_per_node), "--sharding fsdp_hybrid_shard");
  }
  const int per_node = !hybrid ? 1 : a.ranks_per_node ? *a.ranks_per_node : ranks_per_node(topo);
  const ShardingOptions o = make_sharding_options(a, ddp, per_node);
  const Workload w = load_workload_option(ddp.workload);
  const ComputeModel cm = compute_model_option(ddp, w, topo);
  LinkGraph graph(topo);
  const int ranks = topo.rank_count();
  if (o.ranks_per_node < 1 || ranks % o.ranks_per_node != 0) {
    throw ConfigError("--ranks-per-node", "", std::to_string(o.ranks_per_node), fmt::format("a divisor of the {} ranks", ranks));
  }
  // Sharded jobs run on NCCL (torch's FSDP/ZeRO): --backend gloo is a DDP option.
  const CommSpec comm = resolve_comm_spec(requested, topo, true);
  GroupCollectiveCost cost(graph, comm, o.ranks_per_node);
  ShardedReport rep;
  rep.result = simulate_sharded(w, cm, cost.function(), o, ranks);
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
