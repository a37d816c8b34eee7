// `collsim ddp`: one DDP training step of a workload on a topology.
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "sim/cli/commands.hpp"
#include "sim/cli/ddp_options.hpp"
#include "sim/cli/sharding_options.hpp"
#include "sim/coll/collective_cost.hpp"
#include "sim/core/atomic_file.hpp"
#include "sim/core/error.hpp"
#include "sim/measure/calibration.hpp"
#include "sim/report/ddp_report.hpp"
#include "sim/report/trace_writer.hpp"

namespace collsim::cli {

namespace {

struct DdpCommandArgs {
  DdpArgs ddp;
  std::string topology;
  std::optional<int> ranks;
  double bucket_mb = 25;
  std::string trace;
  std::string calibration;
  std::string format = "table";
  ShardingArgs sharding;
};

std::optional<Calibration> calibration_option(const DdpCommandArgs& a) {
  if (a.calibration.empty()) return std::nullopt;
  return load_calibration_file(a.calibration);
}

// The topology with the --calibration file's link classes applied, if one is given.
Topology calibrated_topology(const DdpCommandArgs& a, const std::optional<Calibration>& cal) {
  Topology topo = load_topology_option(a.topology, a.ranks);
  if (cal) {
    apply_calibration(topo, *cal);
  }
  return topo;
}

void run_ddp(const DdpCommandArgs& a, ReportOutput& output) {
  const std::optional<Calibration> cal = calibration_option(a);
  if (a.sharding.sharding != "ddp") {
    if (a.bucket_mb != 25) throw ConfigError("--bucket-mb", "", fmt::format("{}", a.bucket_mb), "--sharding ddp (ZeRO buckets: --reduce-bucket-mb)");
    const OutputFormat format = parse_format_option(a.format);
    run_sharded(a.sharding, a.ddp, calibrated_topology(a, cal), output, format, a.trace, cal ? cal->protocol : std::nullopt);
    return;
  }
  const CommSpec requested = comm_spec_option(a.ddp, cal ? cal->protocol : std::nullopt);
  DdpOptions o = make_ddp_options(a.ddp);
  o.buckets.bucket_cap = bucket_cap_option("--bucket-mb", a.bucket_mb);
  if (!a.ddp.comm_slowdown && cal && cal->ddp) o.compute_slowdown = cal->ddp->comm_slowdown;
  const OutputFormat format = parse_format_option(a.format);
  Topology topo = calibrated_topology(a, cal);
  const Workload w = load_workload_option(a.ddp.workload);
  const ComputeModel cm = compute_model_option(a.ddp, w, topo);
  LinkGraph graph(topo);
  const CommSpec comm = resolve_comm_spec(requested, topo, o.backend == DdpBackend::Nccl);
  if (cal && cal->protocol && comm.protocols == "ideal") {
    spdlog::warn("{}: protocol-model constants are not used by ddp here: its collectives run the ideal protocol "
                 "(CPU ranks, --backend gloo or --protocol ideal); its link classes are applied",
                 a.calibration);
  }
  CollectiveCostCache cache(graph, comm);
  DdpReport rep;
  rep.result = simulate_ddp(w, cm, [&](CollectiveOp op, Bytes b) { return cache.time(op, b); }, o);
  if (cache.broadcast_approximated()) {
    spdlog::warn("algorithm {} has no broadcast: buffer broadcasts are costed as all-reduces of the same bytes", comm.algorithms);
  }
  for (const BucketTiming& b : rep.result.buckets) {
    const auto p = cache.prediction(CollectiveOp::AllReduce, b.wire_bytes);
    rep.bucket_choices.push_back(p ? fmt::format("{}/{}", p->algorithm, to_string(p->protocol)) : std::string());
  }
  rep.workload = w.name;
  rep.topology = topo.name;
  rep.device = cm.device.name;
  rep.algorithm = comm.label();
  rep.backend = a.ddp.backend;
  rep.ranks = topo.rank_count();
  rep.bucket_cap_mb = a.bucket_mb;
  rep.iteration = a.ddp.iteration;
  if (!a.trace.empty()) {
    std::ostringstream out;
    write_chrome_trace(out, rep.result, fmt::format("collsim ddp {} on {} ({} ranks)", w.name, topo.name, rep.ranks));
    write_file_atomically(a.trace, out.str(), "--trace");
  }
  output.put(format, ddp_report_views(rep));
}

}  // namespace

void add_ddp_command(CLI::App& app, ReportOutput& output) {
  auto args = std::make_shared<DdpCommandArgs>();
  CLI::App* cmd = app.add_subcommand("ddp", "Predict one PyTorch DDP training step: buckets, overlap, exposed communication");
  cmd->add_option("--topology", args->topology, "Topology JSON file, or a shipped topology's name like dgx-h100 (default: built-in 8 x H100 NVSwitch node)");
  cmd->add_option("--ranks", args->ranks, "Use only the first N ranks of the topology");
  cmd->add_option("--bucket-mb", args->bucket_mb, "DDP bucket_cap_mb (MiB)")->check(bucket_mb_check())->capture_default_str();
  add_ddp_options(cmd, args->ddp);
  add_sharding_options(cmd, args->sharding);
  cmd->add_option("--calibration", args->calibration,
                  "Calibration JSON (validate --calibrate): per-link-class efficiency and latency applied to the topology, "
                  "and its \"ddp\" section's compute slowdown while communicating");
  cmd->add_option("--trace", args->trace, "Also write the step as a Chrome trace event JSON file (Perfetto, chrome://tracing); DDP and --sharding");
  cmd->add_option("--format", args->format, "table, json or csv")->capture_default_str();
  cmd->callback([args, &output] { run_ddp(*args, output); });
}

}  // namespace collsim::cli
