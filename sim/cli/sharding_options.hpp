// `collsim ddp --sharding NAME`: the ZeRO / FSDP flags, their validation, and the run of
// one sharded step (table, JSON or CSV on stdout).
#pragma once

#include <functional>
#include <optional>
#include <vector>
#include <string>

#include <CLI/CLI.hpp>

#include "sim/cli/ddp_options.hpp"
#include "sim/cli/report_output.hpp"
#include "sim/report/collective_table.hpp"
#include "sim/train/sharding.hpp"
#include "sim/train/elastic.hpp"
#include "sim/train/stragglers.hpp"

namespace collsim::cli {

struct ShardingArgs {
  std::string sharding = "ddp";
  std::string backward_prefetch = "pre";
  bool forward_prefetch = false;
  int all_gather_limit = 2;
  std::optional<int> ranks_per_node;
  std::optional<double> reduce_bucket_mb;
  std::optional<std::int64_t> min_unit_params;
  std::string precision = "adam_mixed";
  bool offload_optimizer = false;
};

void add_sharding_options(CLI::App* cmd, ShardingArgs& a);

// Validated ShardingOptions (ConfigError names the flag); DDP-only flags that were set
// away from their defaults are rejected for a sharded strategy.
[[nodiscard]] ShardingOptions make_sharding_options(const ShardingArgs& a, const DdpArgs& ddp, int default_ranks_per_node);

// An elastic run (--steps, --membership): its changes, their given costs, and the job's
// topology at a rank count (the first N ranks, calibrated).
struct ElasticArgs {
  int steps = 0;
  std::vector<MembershipChange> changes;
  RebuildCosts costs;
  int max_ranks = 0;
  std::function<Topology(int ranks)> topology_at;
};

// What a step meets beyond a healthy cluster of nominal ranks (at most one of them).
struct StepConditions {
  StragglerSpec stragglers;             // slow ranks
  std::optional<ElasticArgs> elastic;   // changes of membership
  std::string scenario;                 // a link-scenario file: events during the step
};

// Runs one sharded step under `conditions` and writes the report; a non-empty `trace`
// path also gets the step as a Chrome trace event JSON file.
void run_sharded(const ShardingArgs& a, const DdpArgs& ddp, const Topology& topo, ReportOutput& output, OutputFormat format,
                 const std::string& trace, const StepConditions& conditions,
                 const std::optional<Calibration>& cal = std::nullopt);

}  // namespace collsim::cli
