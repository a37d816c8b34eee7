// `collsim sweep`: DDP step time over bucket sizes x world sizes, best bucket per size.
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "sim/cli/commands.hpp"
#include "sim/cli/ddp_options.hpp"
#include "sim/cli/run_control.hpp"
#include "sim/core/data_dir.hpp"
#include "sim/core/error.hpp"
#include "sim/core/unit_parse.hpp"
#include "sim/core/text.hpp"
#include "sim/report/sweep_report.hpp"
#include "sim/topo/cluster_topology.hpp"
#include "sim/topo/gpu_catalogue.hpp"
#include "sim/train/workload_path.hpp"

namespace collsim::cli {

namespace {

struct SweepArgs {
  DdpArgs ddp;
  std::string topology;
  std::vector<double> bucket_mb{1, 2, 5, 10, 25, 50, 100, 200};
  std::vector<int> ranks;
  int gpus_per_host = 8;
  std::string gpu = "H100";
  std::string nic = "400Gbps";
  bool exact = false;
  std::string format = "table";
  RunControlArgs run;
};

// The generated cluster's largest world size (each size is a cluster built and played).
constexpr int kMaxSweepRanks = 1 << 20;

// The world sizes of a topology file: at most its ranks (the list's range was checked
// while parsing).
std::vector<int> ranks_within(const std::vector<int>& ranks, int max_ranks) {
  for (int n : ranks) {
    if (n > max_ranks) {
      throw ConfigError("--ranks", "", std::to_string(n), fmt::format("a world size from 1 to {} (the topology's ranks)", max_ranks));
    }
  }
  return ranks;
}

void run_sweep_command(const CLI::App& cmd, const SweepArgs& a, const WorkRunner& runner, ReportOutput& output) {
  std::vector<Bytes> caps;  // each value was checked while parsing (bucket_mb_check)
  for (double mb : a.bucket_mb) caps.push_back(bucket_cap_option("--bucket-mb", mb));
  const SweepSpec base{{}, caps, make_ddp_options(a.ddp), comm_spec_option(a.ddp), a.exact};
  const OutputFormat format = parse_format_option(a.format);
  const Workload w = load_workload_option(a.ddp.workload);
  check_unused_parameters(a.ddp, w, base.options);
  SweepSpec spec = base;
  TopologyForRanks topology;
  std::string topology_name;
  Topology probe;
  if (!a.topology.empty()) {
    const Topology file = load_topology_option(a.topology, std::nullopt);
    spec.ranks = a.ranks.empty() ? std::vector<int>{file.rank_count()} : ranks_within(a.ranks, file.rank_count());
    topology = [file](int n) {
      Topology t = file;
      t.ranks.resize(static_cast<std::size_t>(n));
      return t;
    };
    topology_name = file.name;
    probe = file;
  } else {
    // Checked here so the error names the flag, not the generated cluster it would build.
    const GpuSpec* gpu = find_gpu(a.gpu);
    if (gpu == nullptr) {
      throw ConfigError("--gpu", "", in_quotes(a.gpu), fmt::format("a GPU model, one of: {}", fmt::join(gpu_names(), ", ")));
    }
    SweepClusterSpec cs;
    cs.gpus_per_host = a.gpus_per_host;
    cs.gpu_model = gpu->name;
    try {
      cs.nic_bandwidth = parse_bandwidth(a.nic);
    } catch (const UnitError& e) {
      throw ConfigError("--nic", "", e.value(), e.expected());
    }
    spec.ranks = a.ranks.empty() ? std::vector<int>{8, 16, 32, 64, 128, 256, 512, 1024} : a.ranks;
    topology = [cs](int n) {
      SweepClusterSpec s = cs;
      s.hosts = (n + s.gpus_per_host - 1) / s.gpus_per_host;
      Topology t = make_sweep_cluster(s);
      t.ranks.resize(static_cast<std::size_t>(n));
      return t;
    };
    topology_name = fmt::format("generated cluster: hosts of {} x {} on NVSwitch, one {} NIC per GPU", a.gpus_per_host,
                                a.gpu, a.nic);
    cs.hosts = 1;
    probe = make_sweep_cluster(cs);
  }
  const ComputeModel cm = compute_model_option(a.ddp, w, probe);
  spec.options.host = host_costs_option(a.ddp, cm, base.comm);
  spec.interference = interference_applies(a.ddp, cm, false);
  // What the results depend on: the options, the workload file and the topology file.
  std::vector<std::string> inputs{options_text(cmd), w.name, file_text(resolve_workload_path(a.ddp.workload))};
  if (!a.topology.empty()) inputs.push_back(file_text(resolve_shipped_file(a.topology, "topologies")));
  const WorkOptions options = work_options(a.run, "sweep", inputs);
  WorkStats stats;
  SweepReport rep;
  rep.result = run_sweep(w, cm, topology, spec, runner, options, &stats);
  report_journal_use(a.run, stats);
  rep.workload = w.name;
  rep.topology = topology_name;
  rep.device = cm.device.name;
  rep.algorithm = base.comm.label();
  rep.backend = a.ddp.backend;
  rep.cost_method = a.exact ? "every bucket size played" : "affine fit from 3 plays per world size";
  if (!rep.result.per_size_world_sizes.empty()) {
    rep.cost_method = rep.result.per_size_world_sizes.size() == spec.ranks.size()
                          ? "every bucket size played (NCCL's choice changes with the size)"
                          : fmt::format("every bucket size played at {} ranks (NCCL's choice changes with the size), "
                                        "affine fit from 3 plays elsewhere",
                                        fmt::join(rep.result.per_size_world_sizes, ","));
  }
  if (!rep.result.exact_world_sizes.empty()) {
    rep.cost_method += fmt::format("; fit failed its check at {} ranks, played exactly there",
                                   fmt::join(rep.result.exact_world_sizes, ","));
  }
  output.put(format, sweep_report_views(rep));
}

}  // namespace

void add_sweep_command(CLI::App& app, const WorkRunner& runner, ReportOutput& output) {
  auto args = std::make_shared<SweepArgs>();
  CLI::App* cmd = app.add_subcommand("sweep", "DDP step time over bucket sizes and world sizes; best bucket_cap_mb per size");
  cmd->add_option("--topology", args->topology,
                  "Topology JSON file (or a shipped topology's name) whose first N ranks form each world size (default: a generated cluster)");
  cmd->add_option("--bucket-mb", args->bucket_mb, "Comma-separated bucket_cap_mb values (MiB)")
      ->delimiter(',')
      ->check(bucket_mb_check())
      ->default_str("1,2,5,10,25,50,100,200");
  cmd->add_option("--ranks", args->ranks, "Comma-separated world sizes (default: 8..1024, or the topology's ranks)")
      ->delimiter(',')
      ->check(CLI::Range(1, kMaxSweepRanks));
  cmd->add_option("--gpus-per-host", args->gpus_per_host, "Generated cluster: GPUs per host")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_option("--gpu", args->gpu, "Generated cluster: GPU model")->capture_default_str();
  cmd->add_option("--nic", args->nic, "Generated cluster: NIC bandwidth per GPU")->capture_default_str();
  cmd->add_flag("--exact", args->exact, "Play every distinct bucket size (no affine fit)");
  add_ddp_options(cmd, args->ddp);
  cmd->add_option("--format", args->format, "table, json or csv")->capture_default_str()->configurable(false);
  add_run_control_options(cmd, args->run);
  cmd->callback([cmd, args, &runner, &output] { run_sweep_command(*cmd, *args, runner, output); });
}

}  // namespace collsim::cli
