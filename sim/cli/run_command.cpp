// `collsim run`: a whole training run with failures - expected wall time and goodput by
// Monte Carlo and in closed form, and the best checkpoint interval (sim/train/goodput.hpp);
// or, with --failure-trace, the run replayed against a trace's interruption times
// (sim/train/trace_replay.hpp).
#include <cmath>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "sim/cli/child_process.hpp"
#include "sim/cli/commands.hpp"
#include "sim/core/atomic_file.hpp"
#include "sim/core/data_dir.hpp"
#include "sim/core/error.hpp"
#include "sim/core/unit_parse.hpp"
#include "sim/report/goodput_report.hpp"
#include "sim/report/trace_run_report.hpp"

namespace collsim::cli {

namespace {

struct RunArgs {
  int gpus = 0;
  int gpus_per_host = 8;
  int links = 0;  // 0: one per GPU
  std::string step_time;
  std::int64_t steps = 0;
  std::string mtbf_gpu, mtbf_host, mtbf_link;
  std::string interval = "auto";
  std::string checkpoint_write, checkpoint_size, storage_bandwidth;
  std::string restore;
  std::string restart = "10min";
  int runs = 1000;
  std::uint64_t seed = 1;
  std::string failure_trace;
  bool runs_given = false, seed_given = false;
  std::string format = "table";
  std::string plot;  // a PNG: wall time against the checkpoint interval
};

// Failures per second of `count` parts, each failing once per MTBF on average.
double rate_of(const char* flag, const std::string& text, int count, double& mtbf_s) {
  if (text.empty()) return 0;
  mtbf_s = duration_option(flag, text);
  return count / mtbf_s;
}

// The checkpoint write: --checkpoint-write, or --checkpoint-size over --storage-bandwidth.
double checkpoint_write_s(const RunArgs& a) {
  const bool by_size = !a.checkpoint_size.empty() || !a.storage_bandwidth.empty();
  if (!a.checkpoint_write.empty()) {
    if (by_size) {
      throw ConfigError("--checkpoint-write", "", a.checkpoint_write,
                        "either --checkpoint-write or --checkpoint-size with --storage-bandwidth, not both");
    }
    return duration_option("--checkpoint-write", a.checkpoint_write);
  }
  if (a.checkpoint_size.empty() || a.storage_bandwidth.empty()) {
    throw ConfigError("--checkpoint-write", "", "", "a checkpoint write time (\"5min\"), or --checkpoint-size and --storage-bandwidth");
  }
  Bytes size{0};
  Bandwidth bw{0};
  try {
    size = parse_size(a.checkpoint_size);
  } catch (const UnitError& e) {
    throw ConfigError("--checkpoint-size", "", e.value(), e.expected());
  }
  try {
    bw = parse_bandwidth(a.storage_bandwidth);
  } catch (const UnitError& e) {
    throw ConfigError("--storage-bandwidth", "", e.value(), e.expected());
  }
  if (size.count <= 0) throw ConfigError("--checkpoint-size", "", a.checkpoint_size, "a checkpoint of more than 0 bytes");
  return static_cast<double>(size.count) / bw.bytes_per_s;
}

// The checkpoint write, restart and restore of `m`, and the check that its training fits.
void read_costs(const RunArgs& a, RunModel& m) {
  m.checkpoint_s = checkpoint_write_s(a);
  m.restart_s = duration_option("--restart", a.restart);
  m.restore_s = a.restore.empty() ? m.checkpoint_s : duration_option("--restore", a.restore);
  if (!std::isfinite(m.work_s()) || m.work_s() > 1e12) {
    throw ConfigError("--steps", "", std::to_string(a.steps), "steps x --step-time of at most 1e12 s of training");
  }
}

// --failure-trace: the run replayed against the trace, at the scan's best interval or the given one.
// --plot PNG: the run's JSON report through the shipped plot script (python3 +
// matplotlib); CommandFailed (exit 1) when it cannot draw, saying why.
void write_plot(const std::string& png, const ReportViews& views) {
  const auto script = shipped_script("goodput_plot.py");
  if (!script) throw CommandFailed("--plot: the plot script goodput_plot.py is not in collsim's data folder (share/collsim/scripts)");
  const std::filesystem::path data = png + ".collsim.json";
  std::ostringstream json;
  write_report(json, OutputFormat::Json, views);
  write_file_atomically(data, json.str(), "--plot");
  const std::string python = python_command();
  const ChildRun run = run_child({python, script->string(), data.string(), png});
  std::error_code ignored;
  std::filesystem::remove(data, ignored);
  std::string why = run.output;
  while (!why.empty() && why.back() == '\n') why.pop_back();
  if (run.spawn_error != 0) {
    throw CommandFailed(fmt::format("--plot: could not start {} ({}); install python3 and python3-matplotlib (scripts/setup.sh)",
                                    python, std::strerror(run.spawn_error)));
  }
  if (run.exit_code != 0) throw CommandFailed(fmt::format("--plot: {} was not written: {}", png, why));
}

// --checkpoint-interval: a given duration, or with "auto" `best` (none: one checkpoint at
// the end, m.interval_s as set); sets m.interval_s and says which it was.
std::string choose_interval(const RunArgs& a, RunModel& m, std::optional<double> best, const char* best_label,
                            const char* none_label) {
  if (a.interval != "auto") {
    m.interval_s = duration_option("--checkpoint-interval", a.interval);
    return "given";
  }
  if (!best) return none_label;
  m.interval_s = *best;
  return best_label;
}

void run_trace_command(const RunArgs& a, OutputFormat format, ReportOutput& output) {
  const char* rates = "no MTBF with --failure-trace (the trace's times are the interruptions)";
  if (!a.mtbf_gpu.empty()) throw ConfigError("--mtbf-gpu", "", a.mtbf_gpu, rates);
  if (!a.mtbf_host.empty()) throw ConfigError("--mtbf-host", "", a.mtbf_host, rates);
  if (!a.mtbf_link.empty()) throw ConfigError("--mtbf-link", "", a.mtbf_link, rates);
  if (a.runs_given) {
    throw ConfigError("--runs", "", std::to_string(a.runs),
                      "no --runs with --failure-trace (a trace is replayed once, deterministically)");
  }
  if (a.seed_given) {
    throw ConfigError("--seed", "", std::to_string(a.seed), "no --seed with --failure-trace (a replay draws nothing)");
  }
  TraceRunReport rep;
  rep.gpus = a.gpus;
  rep.hosts = (a.gpus + a.gpus_per_host - 1) / a.gpus_per_host;
  rep.links = a.links > 0 ? a.links : a.gpus;
  RunModel& m = rep.model;
  m.step_s = duration_option("--step-time", a.step_time);
  m.steps = a.steps;
  read_costs(a, m);
  rep.trace = load_failure_trace(a.failure_trace);
  m.interval_s = m.work_s();
  if (!rep.trace.interruptions.empty()) rep.scan = scan_trace_interval(m, rep.trace);
  rep.interval_choice = choose_interval(a, m, rep.scan ? std::optional(rep.scan->points[rep.scan->best].interval_s) : std::nullopt,
                                        "auto: the best interval of the scan",
                                        "auto: no interruptions in the trace, one checkpoint at the end");
  rep.replay = replay_trace(m, rep.trace);
  output.put(format, trace_run_report_views(rep));
  if (!a.plot.empty()) write_plot(a.plot, trace_run_report_views(rep));
}

void run_run_command(const RunArgs& a, ReportOutput& output) {
  const OutputFormat format = parse_format_option(a.format);
  if (!a.failure_trace.empty()) {
    run_trace_command(a, format, output);
    return;
  }
  GoodputReport rep;
  rep.gpus = a.gpus;
  rep.hosts = (a.gpus + a.gpus_per_host - 1) / a.gpus_per_host;
  rep.links = a.links > 0 ? a.links : a.gpus;
  rep.seed = a.seed;
  RunModel& m = rep.model;
  m.step_s = duration_option("--step-time", a.step_time);
  m.steps = a.steps;
  m.failure_rate = rate_of("--mtbf-gpu", a.mtbf_gpu, rep.gpus, rep.mtbf_gpu_s) +
                   rate_of("--mtbf-host", a.mtbf_host, rep.hosts, rep.mtbf_host_s) +
                   rate_of("--mtbf-link", a.mtbf_link, rep.links, rep.mtbf_link_s);
  read_costs(a, m);
  m.interval_s = m.work_s();
  if (m.failure_rate > 0) rep.search = search_interval(m, a.runs, a.seed);
  rep.interval_choice = choose_interval(a, m, rep.search ? std::optional(rep.search->mc_optimum_s) : std::nullopt,
                                        "auto: the Monte Carlo optimum", "auto: no interruptions, one checkpoint at the end");
  rep.estimate = monte_carlo(m, a.runs, a.seed);
  rep.expected_wall_s = expected_wall_s(m);
  output.put(format, goodput_report_views(rep));
  if (!a.plot.empty()) write_plot(a.plot, goodput_report_views(rep));
}

}  // namespace

void add_run_command(CLI::App& app, ReportOutput& output) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand(
      "run", "A whole training run with failures: expected wall time, goodput and the best checkpoint interval");
  cmd->add_option("--gpus", args->gpus, "GPUs in the job")->required()->check(CLI::Range(1, 10'000'000));
  cmd->add_option("--gpus-per-host", args->gpus_per_host, "GPUs per host (hosts = GPUs / this)")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_option("--links", args->links, "Network links whose failure stops the job (default: one per GPU)")
      ->check(CLI::Range(1, 100'000'000));
  cmd->add_option("--step-time", args->step_time, "One training step without failures, e.g. 5s (from collsim ddp or plan)")
      ->required();
  cmd->add_option("--steps", args->steps, "Training steps of the run")->required()->check(CLI::Range(std::int64_t{1}, std::int64_t{1'000'000'000'000}));
  cmd->add_option("--mtbf-gpu", args->mtbf_gpu, "Mean time between failures of one GPU, e.g. 50000h (default: GPUs never fail)");
  cmd->add_option("--mtbf-host", args->mtbf_host, "MTBF of one host apart from its GPUs (CPU, memory, power, NICs)");
  cmd->add_option("--mtbf-link", args->mtbf_link, "MTBF of one network link");
  cmd->add_option("--checkpoint-interval", args->interval,
                  "Training time between checkpoints (rounded to whole steps), or auto: the Monte Carlo optimum "
                  "(with --failure-trace: the scan's best)")
      ->capture_default_str();
  cmd->add_option("--checkpoint-write", args->checkpoint_write, "Time to write one checkpoint (training waits)");
  cmd->add_option("--checkpoint-size", args->checkpoint_size, "Checkpoint size, e.g. 1TB (with --storage-bandwidth)");
  cmd->add_option("--storage-bandwidth", args->storage_bandwidth, "Aggregate checkpoint write bandwidth, e.g. 100GB/s");
  cmd->add_option("--restore", args->restore, "Time to read the last checkpoint back (default: the write time)");
  cmd->add_option("--restart", args->restart,
                  "From an interruption to a job that trains again: detection, rescheduling, rendezvous, communicator init")
      ->capture_default_str();
  CLI::Option* runs =
      cmd->add_option("--runs", args->runs, "Monte Carlo runs")->check(CLI::Range(1, 1'000'000))->capture_default_str();
  CLI::Option* seed = cmd->add_option("--seed", args->seed, "Random seed (same seed, same output)")->capture_default_str();
  cmd->add_option("--failure-trace", args->failure_trace,
                  "A JSON file of interruption times to replay instead of MTBFs, once and deterministically "
                  "(docs/file-formats.md#failure-traces); not with --mtbf-*, --runs or --seed");
  cmd->add_option("--format", args->format, "table, json or csv (the interval scan)")->capture_default_str();
  cmd->add_option("--plot", args->plot,
                  "Also draw the wall time against the checkpoint interval into this PNG (python3 + matplotlib)");
  cmd->callback([args, runs, seed, &output] {
    args->runs_given = runs->count() > 0;
    args->seed_given = seed->count() > 0;
    run_run_command(*args, output);
  });
}

}  // namespace collsim::cli
