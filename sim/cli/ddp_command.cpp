// `collsim ddp`: one DDP training step of a workload on a topology.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <type_traits>
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
#include "sim/coll/calibration.hpp"
#include "sim/report/ddp_report.hpp"
#include "sim/report/trace_writer.hpp"
#include "sim/cli/schedule_proofs.hpp"
#include "sim/train/ddp_names.hpp"
#include "sim/train/ddp_startup.hpp"
#include "sim/train/elastic.hpp"
#include "sim/train/gloo_cuda.hpp"
#include "sim/train/eventful_step.hpp"
#include "sim/coll/link_scenario.hpp"
#include "sim/train/interference.hpp"
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
  std::vector<std::string> membership;  // "STEP:RANKS"
  std::string rendezvous;               // a duration; empty: torchelastic's default wait
  std::string comm_init;                // a duration; empty: not modelled
  std::string scenario;                 // link events during the step
  std::vector<std::string> join;        // "RANK:BATCHES": uneven inputs under Join
  bool no_init_sync = false;            // DDP(init_sync=False): no start-up broadcast
};

// "RANK:NUMBER" items (--rank-speed, --membership), the number read whole.
template <typename Second>
std::vector<std::pair<int, Second>> pairs_option(const char* flag, const std::vector<std::string>& items,
                                                 const char* expected) {
  std::vector<std::pair<int, Second>> out;
  for (const auto& [first, text] : rank_pairs_option(flag, items, expected)) {
    std::size_t used = 0;
    try {
      if constexpr (std::is_same_v<Second, double>) {
        out.emplace_back(first, std::stod(text, &used));
      } else {
        out.emplace_back(first, std::stoi(text, &used));
      }
      if (used != text.size()) throw std::invalid_argument(text);
    } catch (const std::logic_error&) {
      throw ConfigError(flag, "", fmt::format("\"{}:{}\"", first, text), expected);
    }
  }
  return out;
}

// --rank-speed 3:0.5,7:0.8 as (rank, speed) pairs; ranges are checked by simulate_stragglers.
std::vector<std::pair<int, double>> rank_speeds(const std::vector<std::string>& items) {
  return pairs_option<double>("--rank-speed", items,
                                   "RANK:SPEED pairs, comma-separated (e.g. 3:0.5 for rank 3 at half speed)");
}

StragglerSpec straggler_option(const DdpCommandArgs& a) {
  StragglerSpec s;
  s.speeds = rank_speeds(a.rank_speed);
  s.jitter_sigma = a.jitter;
  s.steps = a.steps ? *a.steps : (a.jitter > 0 ? 100 : 1);
  s.seed = a.seed;
  const bool onebit = a.ddp.hook.starts_with("onebit");
  if (a.steps && *a.steps > 1 && a.jitter == 0 && a.membership.empty() && !onebit && a.join.empty()) {
    throw ConfigError("--steps", "", std::to_string(*a.steps),
                      "--jitter, --membership, --join or --hook onebit beside it (without them every step is the same)");
  }
  return s;
}

std::optional<Calibration> calibration_option(const DdpCommandArgs& a) {
  if (a.calibration.empty()) return std::nullopt;
  return load_calibration_file(a.calibration);
}

// The topology (its first `ranks` ranks) with the --calibration file's link classes applied, if one is given.
Topology calibrated_topology(const DdpCommandArgs& a, const std::optional<Calibration>& cal, std::optional<int> ranks) {
  Topology topo = load_topology_option(a.topology, ranks);
  if (cal) {
    apply_calibration(topo, *cal);
  }
  return topo;
}

// The job on one set of ranks: the topology cut to them, its links and collective costs.
struct JobAtRanks {
  Topology topo;
  std::unique_ptr<LinkGraph> graph;
  CommSpec comm;
  std::unique_ptr<CollectiveCostCache> cache;
};

std::shared_ptr<JobAtRanks> job_at(const DdpCommandArgs& a, const std::optional<Calibration>& cal,
                                   const CommSpec& requested, const DdpOptions& o, std::optional<int> ranks) {
  auto job = std::make_shared<JobAtRanks>();
  job->topo = calibrated_topology(a, cal, ranks);
  job->graph = std::make_unique<LinkGraph>(job->topo);
  job->comm = resolve_comm_spec(requested, job->topo, o.backend == DdpBackend::Nccl);
  job->cache = std::make_unique<CollectiveCostCache>(*job->graph, job->comm);
  return job;
}

// An optional duration flag (empty: not given).
std::optional<Time> duration_flag(const char* flag, const std::string& text) {
  if (text.empty()) return std::nullopt;
  return Time::from_seconds(duration_option(flag, text));
}

// --membership with --steps: the changes, their costs and the topology's size (DDP and sharded).
ElasticArgs elastic_option(const DdpCommandArgs& a) {
  if (!a.steps) throw ConfigError("--membership", "", "", "--steps beside it (the run's length)");
  if (!a.rank_speed.empty() || a.jitter > 0) {
    throw ConfigError("--membership", "", "", "no --rank-speed or --jitter beside it (elastic runs have nominal ranks)");
  }
  ElasticArgs e;
  e.steps = *a.steps;
  for (const auto& [step, ranks] : pairs_option<int>("--membership", a.membership,
                                                     "STEP:RANKS pairs, comma-separated (e.g. 5:24: from step 5 on, the first 24 ranks)")) {
    e.changes.push_back({step, ranks});
  }
  e.costs.rendezvous = duration_flag("--rendezvous", a.rendezvous);
  e.costs.comm_init = duration_flag("--comm-init", a.comm_init);
  e.max_ranks = load_topology_option(a.topology, std::nullopt).rank_count();
  return e;
}

// A DDP run across its changes of membership (simulate_elastic).
ElasticResult run_elastic(const DdpCommandArgs& a, const std::optional<Calibration>& cal, const CommSpec& requested,
                          const DdpOptions& o, const Workload& w, const std::shared_ptr<JobAtRanks>& first) {
  const ElasticArgs e = elastic_option(a);
  const MembershipFn at = [&](int ranks) {
    const auto job = ranks == first->topo.rank_count() ? first : job_at(a, cal, requested, o, ranks);
    const ComputeModel cm = compute_model_option(a.ddp, w, job->topo);
    const CollectiveCostFn cost =
        with_gloo_copies([job](CollectiveOp op, Bytes b) { return job->cache->time(op, b); }, o.backend, cm.device);
    DdpOptions at_ranks = o;
    at_ranks.world_size = ranks;
    if (o.comm_interference) at_ranks.comm_interference = slowdown_from(*job->cache, cm.device);
    const DdpResult step = simulate_ddp(w, cm, cost, at_ranks);
    std::vector<std::pair<CollectiveOp, Bytes>> collectives;
    for (const BucketTiming& b : step.buckets) collectives.emplace_back(CollectiveOp::AllReduce, b.wire_bytes);
    MembershipModel m;
    m.step = ElasticStep{step.iteration, step.exposed_comm};
    m.cost = cost;
    m.proofs = prove_schedules(job->topo, *job->cache, collectives);
    return m;
  };
  return simulate_elastic(ddp_model_state(w), e.steps, first->topo.rank_count(), e.max_ranks, e.changes, e.costs, at);
}

// --scenario: the DDP step again with each all-reduce (and broadcast) priced where it
// starts, with the link events it meets (EventfulStep); `step` becomes that step.
StepEvents play_with_events(const std::string& file, const Topology& topo, const Workload& w, const ComputeModel& cm,
                            const DdpOptions& o, CollectiveCostCache& cache, DdpResult& step) {
  EventfulStep eventful(std::make_shared<const LinkScenario>(load_link_scenario(file, topo)));
  const CollectiveCostFn timed = with_gloo_copies(
      [&](CollectiveOp op, Bytes bytes) {
        return eventful.cost(cache.time(op, bytes), [&](const auto& seen) { return cache.time_during(op, bytes, seen); });
      },
      o.backend, cm.device);
  const Time healthy = step.iteration;
  do {
    step = simulate_ddp(w, cm, timed, o);
  } while (!eventful.settled(step.program, step.timeline));
  StepEvents out = eventful.summary(step.program, step.timeline, healthy);
  out.scenario = file;
  return out;
}

// --join RANK:BATCHES pairs over a run of --steps batches: every rank's batch count.
std::vector<int> join_batches(const DdpCommandArgs& a, int ranks) {
  if (!a.steps) throw ConfigError("--join", "", "", "--steps beside it (the batches of every rank not listed)");
  std::vector<int> batches(static_cast<std::size_t>(ranks), *a.steps);
  for (const auto& [rank, count] : pairs_option<int>("--join", a.join,
                                                     "RANK:BATCHES pairs, comma-separated (e.g. 3:90: rank 3 has 90 batches)")) {
    if (rank < 0 || rank >= ranks) {
      throw ConfigError("--join", "", fmt::format("{}:{}", rank, count), fmt::format("a rank from 0 to {}", ranks - 1));
    }
    if (count < 1 || count > *a.steps) {
      throw ConfigError("--join", "", fmt::format("{}:{}", rank, count),
                        fmt::format("a batch count from 1 to --steps ({})", *a.steps));
    }
    batches[static_cast<std::size_t>(rank)] = count;
  }
  return batches;
}

// At most one of: slow ranks, changes of membership, link events.
void check_conditions(const DdpCommandArgs& a) {
  const bool slow = !a.rank_speed.empty() || a.jitter > 0;
  if (!a.scenario.empty() && (slow || !a.membership.empty())) {
    throw ConfigError("--scenario", "", a.scenario, "no --rank-speed, --jitter or --membership beside it (one condition per run)");
  }
}

void run_ddp(const DdpCommandArgs& a, ReportOutput& output) {
  check_conditions(a);
  const std::optional<Calibration> cal = calibration_option(a);
  const StragglerSpec stragglers = straggler_option(a);
  if (a.sharding.sharding != "ddp") {
    if (!a.join.empty()) throw ConfigError("--join", "", a.sharding.sharding, "--sharding ddp (this flag is a DDP setting)");
    if (a.no_init_sync) throw ConfigError("--no-init-sync", "", a.sharding.sharding, "--sharding ddp (this flag is a DDP setting)");
    if (a.bucket_mb != 25) throw ConfigError("--bucket-mb", "", fmt::format("{}", a.bucket_mb), "--sharding ddp (ZeRO buckets: --reduce-bucket-mb)");
    const OutputFormat format = parse_format_option(a.format);
    StepConditions conditions{stragglers, std::nullopt, a.scenario};
    if (!a.membership.empty()) {
      conditions.elastic = elastic_option(a);
      conditions.elastic->topology_at = [&a, &cal](int ranks) { return calibrated_topology(a, cal, ranks); };
    }
    run_sharded(a.sharding, a.ddp, calibrated_topology(a, cal, a.ranks), output, format, a.trace, conditions, cal);
    return;
  }
  if (a.sharding.offload_optimizer) {
    throw ConfigError("--offload-optimizer", "", "ddp", "--sharding zero1, zero2 or zero3 (DeepSpeed's offload_optimizer)");
  }
  const CommSpec requested = comm_spec_option(a.ddp, cal);
  DdpOptions o = make_ddp_options(a.ddp);
  o.buckets.bucket_cap = bucket_cap_option("--bucket-mb", a.bucket_mb);
  if (!a.ddp.comm_slowdown && cal && cal->ddp) o.compute_slowdown = cal->ddp->comm_slowdown;
  const OutputFormat format = parse_format_option(a.format);
  const auto job = job_at(a, cal, requested, o, a.ranks);
  const Topology& topo = job->topo;
  const CommSpec& comm = job->comm;
  CollectiveCostCache& cache = *job->cache;
  const Workload w = load_workload_option(a.ddp.workload);
  check_unused_parameters(a.ddp, w, o);
  const ComputeModel cm = compute_model_option(a.ddp, w, topo);
  o.host = host_costs_option(a.ddp, cm, comm);
  o.world_size = topo.rank_count();
  if (interference_applies(a.ddp, cm, cal && cal->ddp)) o.comm_interference = slowdown_from(cache, cm.device);
  if (cal && cal->protocol && comm.protocols == "ideal") {
    spdlog::warn("{}: protocol-model constants are not used by ddp here: its collectives run the ideal protocol "
                 "(CPU ranks, --backend gloo or --protocol ideal); its link classes are applied",
                 a.calibration);
  }
  DdpReport rep;
  const CollectiveCostFn cost =
      with_gloo_copies([&](CollectiveOp op, Bytes b) { return cache.time(op, b); }, o.backend, cm.device);
  if (stragglers.active()) {
    DdpStragglers sr = simulate_stragglers(w, cm, cost, o, topo.rank_count(), stragglers);
    rep.result = std::move(sr.first);
    rep.stragglers = std::move(static_cast<StragglerResult&>(sr));
    rep.straggler_seed = stragglers.seed;
    rep.jitter_sigma = stragglers.jitter_sigma;
  } else {
    rep.result = simulate_ddp(w, cm, cost, o);
  }
  if (o.first_iteration && !a.no_init_sync) rep.init_sync = module_state_broadcast(w, cost);
  if (!a.join.empty()) {
    if (stragglers.active() || !a.membership.empty() || !a.scenario.empty()) {
      throw ConfigError("--join", "", "", "no --rank-speed, --jitter, --membership or --scenario beside it");
    }
    rep.join = simulate_join(w, cm, cost, o, join_batches(a, topo.rank_count()));
  }
  if (o.hook == CommHook::OneBit) {
    // The warm-up steps: the same step without a hook (full-precision all-reduces).
    DdpOptions warm = o;
    warm.hook = CommHook::None;
    const auto choice = comm_hook_from(a.ddp.hook);  // checked by make_ddp_options
    rep.onebit = onebit_run(choice ? choice->onebit_warmup : 0, a.steps.value_or(0), simulate_ddp(w, cm, cost, warm).iteration,
                            rep.result.iteration);
  }
  if (!a.membership.empty()) rep.elastic = run_elastic(a, cal, requested, o, w, job);
  if (!a.scenario.empty()) rep.events = play_with_events(a.scenario, topo, w, cm, o, cache, rep.result);
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
                  "Slow ranks: RANK:SPEED pairs, comma-separated (3:0.5 = rank 3 computes at half speed); DDP and --sharding")
      ->delimiter(',');
  cmd->add_option("--jitter", args->jitter,
                  "Per-step compute jitter: sigma of a log-normal time factor per rank and step (0.05 = ~5 %)")
      ->capture_default_str();
  cmd->add_option("--steps", args->steps, "Steps drawn with --jitter (default 100), or the run's steps with --membership or --hook onebit:W");
  cmd->add_option("--membership", args->membership,
                  "Elastic run: STEP:RANKS pairs, comma-separated (5:24 = from step 5 on, the first 24 ranks); with --steps")
      ->delimiter(',');
  cmd->add_option("--rendezvous", args->rendezvous,
                  "Rendezvous time per change of membership (default: torchelastic's 30 s last-call wait below the largest size, else 0)");
  cmd->add_option("--comm-init", args->comm_init, "NCCL communicator init per change of membership (default: not modelled)");
  cmd->add_option("--scenario", args->scenario,
                  "Link and NIC events during the step (the collective --scenario format, times from the step's start): "
                  "each collective priced where it starts, against the healthy step");
  cmd->add_option("--join", args->join,
                  "Uneven inputs under Join: RANK:BATCHES pairs, comma-separated, the other ranks having --steps batches; "
                  "the run's time, the shadow steps of ranks out of batches and the final model broadcast")
      ->delimiter(',');
  cmd->add_flag("--no-init-sync", args->no_init_sync,
                "DDP(init_sync=False): with --iteration 0, no start-up broadcast of parameters and buffers");
  cmd->add_option("--seed", args->seed, "Seed of the jitter (same seed, same output)")->capture_default_str();
  cmd->add_option("--format", args->format, "table, json or csv")->capture_default_str();
  cmd->callback([args, &output] { run_ddp(*args, output); });
}

}  // namespace collsim::cli
