// `collsim ddp`: one DDP training step of a workload on a topology.
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

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
#include "sim/train/stragglers.hpp"

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
  std::vector<std::string> rank_speed;  // "RANK:SPEED"
  double jitter = 0;
  std::optional<int> steps;  // unset: 100 with --jitter, else 1
  std::uint64_t seed = 1;
};

// --rank-speed 3:0.5,7:0.8 as (rank, speed) pairs; ranges are checked by simulate_stragglers.
std::vector<std::pair<int, double>> rank_speeds(const std::vector<std::string>& items) {
  std::vector<std::pair<int, double>> out;
  for (const auto& item : items) {
    const auto colon = item.find(':');
    std::size_t used_rank = 0, used_speed = 0;
    try {
      if (colon == std::string::npos) throw std::invalid_argument(item);
      const std::string rank = item.substr(0, colon), speed = item.substr(colon + 1);
      const int r = std::stoi(rank, &used_rank);
      const double f = std::stod(speed, &used_speed);
      if (used_rank != rank.size() || used_speed != speed.size()) throw std::invalid_argument(item);
      out.emplace_back(r, f);
    } catch (const std::logic_error&) {
      throw ConfigError("--rank-speed", "", fmt::format("\"{}\"", item),
                        "RANK:SPEED pairs, comma-separated (e.g. 3:0.5 for rank 3 at half speed)");
    }
  }
  return out;
}

StragglerSpec straggler_option(const DdpCommandArgs& a) {
  StragglerSpec s;
  s.speeds = rank_speeds(a.rank_speed);
  s.jitter_sigma = a.jitter;
  s.steps = a.steps ? *a.steps : (a.jitter > 0 ? 100 : 1);
  s.seed = a.seed;
  if (a.steps && *a.steps > 1 && a.jitter == 0) {
    throw ConfigError("--steps", "", std::to_string(*a.steps), "--jitter beside it (without jitter every step is the same)");
  }
  return s;
}

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
  const StragglerSpec stragglers = straggler_option(a);
  if (a.sharding.sharding != "ddp") {
    if (stragglers.active()) throw ConfigError("--rank-speed", "", "", "--sharding ddp (stragglers are modelled for DDP steps)");
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
  const CollectiveCostFn cost = [&](CollectiveOp op, Bytes b) { return cache.time(op, b); };
  if (stragglers.active()) {
    StragglerResult sr = simulate_stragglers(w, cm, cost, o, topo.rank_count(), stragglers);
    rep.result = sr.first;
    rep.stragglers = std::move(sr);
    rep.straggler_seed = stragglers.seed;
    rep.jitter_sigma = stragglers.jitter_sigma;
  } else {
    rep.result = simulate_ddp(w, cm, cost, o);
  }
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
  cmd->add_option("--rank-speed", args->rank_speed,
                  "Slow ranks: RANK:SPEED pairs, comma-separated (3:0.5 = rank 3 computes at half speed); DDP only")
      ->delimiter(',');
  cmd->add_option("--jitter", args->jitter,
                  "Per-step compute jitter: sigma of a log-normal time factor per rank and step (0.05 = ~5 %)")
      ->capture_default_str();
  cmd->add_option("--steps", args->steps, "Steps drawn with --jitter (default 100)");
  cmd->add_option("--seed", args->seed, "Seed of the jitter (same seed, same output)")->capture_default_str();
  cmd->add_option("--format", args->format, "table, json or csv")->capture_default_str();
  cmd->callback([args, &output] { run_ddp(*args, output); });
}

}  // namespace collsim::cli
