// `collsim collective`: one collective over a range of sizes (nccl-tests columns), and
// optionally the Perfetto trace of one size.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "sim/cli/commands.hpp"
#include "sim/cli/nccl_options.hpp"
#include "sim/coll/crossover.hpp"
#include "sim/coll/comm_spec.hpp"
#include "sim/coll/nccl/channel_search.hpp"
#include "sim/coll/nccl_env.hpp"
#include "sim/coll/predict.hpp"
#include "sim/coll/selection.hpp"
#include "sim/coll/topology_facts.hpp"
#include "sim/core/atomic_file.hpp"
#include "sim/core/error.hpp"
#include "sim/core/random_stream.hpp"
#include "sim/core/size_list.hpp"
#include "sim/core/unit_parse.hpp"
#include "sim/core/text.hpp"
#include "sim/coll/calibration.hpp"
#include "sim/report/collective_trace.hpp"

namespace collsim::cli {

namespace {

struct CollectiveArgs {
  std::string topology;
  std::string op = "allreduce";
  std::string algo = "auto";
  std::string protocol = "auto";
  std::string sizes = "1KiB:1GiB";
  double factor = 2.0;
  std::optional<int> ranks;
  std::optional<int> hosts;
  int root = 0;
  int channels = 0;
  std::string slice;
  std::string calibration;
  bool crossover = false;
  bool exact = false;
  std::string format = "table";
  std::string trace;
  std::string scenario;
  std::vector<std::string> rank_delay;  // "RANK:DURATION"
  std::string arrival_jitter;           // a duration: half-normal scale of every rank's arrival
  std::uint64_t seed = 1;
  NcclKnobArgs nccl;
};

// When each rank enters the collective, from the first rank's entry: --rank-delay's fixed
// delays plus, with --arrival-jitter SIGMA, |z| x SIGMA per rank (a half-normal, drawn in
// rank order from the seed's stream); empty when neither is given.
std::vector<Time> rank_arrivals(const CollectiveArgs& a, int ranks) {
  if (a.rank_delay.empty() && a.arrival_jitter.empty()) return {};
  const char* expected = "RANK:DELAY pairs, comma-separated, each delay a time with a unit (e.g. 3:50us)";
  std::vector<Time> at(static_cast<std::size_t>(ranks));
  for (const auto& [rank, text] : rank_pairs_option("--rank-delay", a.rank_delay, expected)) {
    if (rank < 0 || rank >= ranks) {
      throw ConfigError("--rank-delay", "", std::to_string(rank), fmt::format("a rank from 0 to {}", ranks - 1));
    }
    try {
      at[static_cast<std::size_t>(rank)] = parse_time(text, kMaxTaskTime);
    } catch (const UnitError& e) {
      throw ConfigError("--rank-delay", "", e.value(), e.expected());
    }
  }
  if (!a.arrival_jitter.empty()) {
    Time sigma;
    try {
      sigma = parse_time(a.arrival_jitter, kMaxTaskTime);
    } catch (const UnitError& e) {
      throw ConfigError("--arrival-jitter", "", e.value(), e.expected());
    }
    RandomStream rng(a.seed, 0);
    for (Time& t : at) t += Time{static_cast<std::int64_t>(std::llround(std::abs(rng.normal()) * static_cast<double>(sigma.ps)))};
  }
  // Time runs from the first rank's entry.
  const Time first = *std::min_element(at.begin(), at.end());
  for (Time& t : at) t = t - first;
  return at;
}

void run_collective(const CollectiveArgs& in, ReportOutput& output) {
  CollectiveArgs a = in;
  const NcclEnv env = resolve_nccl_knobs(a.nccl, a.algo, a.protocol);
  const auto op = enum_from<CollectiveOp>(a.op);
  if (!op) throw ConfigError("--op", "", in_quotes(a.op), fmt::format("one of: {}", fmt::join(enum_names<CollectiveOp>(), ", ")));
  CollectiveRequest req;
  try {
    req.algorithms = parse_algorithm_list(a.algo, *op);
  } catch (const std::invalid_argument& e) {
    throw ConfigError("--algo", "", fmt::format("\"{}\" ({})", a.algo, e.what()),
                      fmt::format("auto, or a list (\"ring,tree\", \"^tree\") of: {}", fmt::join(algorithm_names(), ", ")));
  }
  for (const auto& algo : req.algorithms) {
    if (!supports(algo, *op) && !is_choice(a.algo)) {
      throw ConfigError("--algo", "", in_quotes(algo), fmt::format("an algorithm that implements {}", a.op));
    }
  }
  try {
    req.protocols = parse_protocol_list(a.protocol);
    req.protocols_auto = is_auto(a.protocol);
  } catch (const std::invalid_argument& e) {
    throw ConfigError("--protocol", "", fmt::format("\"{}\" ({})", a.protocol, e.what()),
                      "auto, or a list (\"ll,simple\", \"^ll128\") of: ideal, ll, ll128, simple");
  }
  std::vector<Bytes> sizes;
  try {
    sizes = parse_size_list(a.sizes, a.factor);
  } catch (const UnitError& e) {
    throw ConfigError("--sizes", "", e.value(), e.expected());
  }
  if (!a.trace.empty() && sizes.size() != 1) {
    throw ConfigError("--trace", "", a.trace,
                      fmt::format("one size in --sizes (a trace shows one collective; --sizes gives {})", sizes.size()));
  }
  if (a.channels < 0 || a.channels > 64) {
    throw ConfigError("--channels", "", std::to_string(a.channels), "a channel count from 1 to 64 (0: NCCL's search)");
  }
  req.overrides.channels = a.channels;
  if (!a.slice.empty()) {
    try {
      req.overrides.slice = parse_size(a.slice);
    } catch (const UnitError& e) {
      throw ConfigError("--slice", "", e.value(), e.expected());
    }
    if (req.overrides.slice.count < 1 || req.overrides.slice > kMaxMessageBytes) {
      throw ConfigError("--slice", "", in_quotes(a.slice), fmt::format("a slice of at least 1 B and at most {}", to_string(kMaxMessageBytes)));
    }
  }
  // One calibration format (sim/coll/calibration.hpp): protocol constants and/or link classes.
  std::optional<Calibration> calibration;
  if (!a.calibration.empty()) calibration = load_calibration_file(a.calibration);
  req.model = calibrated_protocol_model(calibration, env);
  const OutputFormat format = parse_format_option(a.format);
  Topology topo = load_topology_option(a.topology, a.ranks);
  if (calibration) apply_calibration(topo, *calibration);
  if (a.hosts && (*a.hosts < 1 || *a.hosts > topo.rank_count())) {
    throw ConfigError("--hosts", "", std::to_string(*a.hosts), fmt::format("a host count from 1 to {}", topo.rank_count()));
  }
  req.hosts = a.hosts;
  req.exact = a.exact;
  // NCCL runs on GPUs: on CPU ranks (the TCP test bed) "auto" is the ring under the ideal
  // protocol, as gloo and MPI run it.
  if (!nccl_ranks(topo)) {
    const CommSpec resolved = resolve_comm_spec(CommSpec{a.algo, a.protocol}, topo, false);
    req.algorithms = parse_algorithm_list(resolved.algorithms, *op);
    req.protocols = parse_protocol_list(resolved.protocols);
  }
  if (a.root < 0 || a.root >= topo.rank_count()) {
    throw ConfigError("--root", "", std::to_string(a.root), fmt::format("a rank from 0 to {}", topo.rank_count() - 1));
  }
  LinkGraph graph(topo);
  CollectiveReport report;
  report.topology = topo.name;
  CollectiveRequest with_events = req;
  if (!a.scenario.empty()) {
    if (a.crossover) throw ConfigError("--crossover", "", "", "no --scenario beside it (crossovers are of the healthy topology)");
    with_events.scenario = std::make_shared<const LinkScenario>(load_link_scenario(a.scenario, topo));
    report.scenario = a.scenario;
  }
  report.rank_arrival = rank_arrivals(a, topo.rank_count());
  if (!report.rank_arrival.empty()) {
    if (a.crossover) throw ConfigError("--crossover", "", "", "no --rank-delay or --arrival-jitter beside it (crossovers are of ranks on time)");
    with_events.rank_arrival = std::make_shared<const std::vector<Time>>(report.rank_arrival);
  }
  const bool reference = with_events.scenario || with_events.rank_arrival;
  // NCCL's channel graph is the same at every size: searched once, at the first.
  const bool nccl_protocols =
      std::any_of(req.protocols.begin(), req.protocols.end(), [](Protocol p) { return p != Protocol::Ideal; });
  for (Bytes s : sizes) {
    const Collective c{*op, topo.rank_count(), a.root, nccl_tests_size(*op, topo.rank_count(), s)};
    try {
      if (nccl_protocols && !req.channel_graph) {
        req.channel_graph = std::make_shared<const std::optional<NcclGraph>>(
            search_nccl_ring(graph, topology_facts(topo, req.hosts).host_of_rank, nccl_search_options(req.model)));
        with_events.channel_graph = req.channel_graph;
      }
      if (reference) report.healthy.push_back(predict_collective(graph, c, req));
      report.rows.push_back(predict_collective(graph, c, with_events));
    } catch (const std::invalid_argument& e) {
      throw ConfigError("--algo", "", fmt::format("\"{}\" with --protocol \"{}\"", a.algo, a.protocol),
                        fmt::format("a combination that can run on {} ({})", topo.name, e.what()));
    } catch (const OverflowError& e) {
      // Each input is in range but the collective would outlast the clock: name the size.
      throw ConfigError("--sizes", "", to_string(s),
                        fmt::format("a size whose {} on {} takes less than the clock's range (it leads to {})", a.op,
                                    topo.name, e.what()));
    }
  }
  if (!a.trace.empty()) {
    std::ostringstream out;
    const CollectivePrediction& row = report.rows.front();
    write_collective_trace(out, row, replay_collective(graph, row, with_events), topo.name);
    write_file_atomically(a.trace, out.str(), "--trace");
  }
  if (a.crossover) report.crossovers = find_crossovers(graph, report.rows, req);
  output.put(format, collective_report_views(report));
}

}  // namespace

void add_collective_command(CLI::App& app, ReportOutput& output) {
  auto args = std::make_shared<CollectiveArgs>();
  CLI::App* cmd = app.add_subcommand("collective", "Predict one collective over a range of sizes (nccl-tests columns)");
  cmd->add_option("--topology", args->topology, "Topology JSON file, or a shipped topology's name like dgx-h100 (default: built-in 8 x H100 NVSwitch node)");
  cmd->add_option("--op", args->op, "Collective: allreduce, reducescatter, allgather, broadcast, reduce, alltoall")
      ->capture_default_str();
  cmd->add_option("--algo", args->algo,
                  fmt::format("Algorithm, a list (ring,tree) or ^list, or auto (NCCL's choice among {}; the {} on CPU "
                              "ranks): {}",
                              fmt::join(automatic_algorithms(CollectiveOp::AllReduce), ", "), default_algorithm(),
                              fmt::join(algorithm_names(), ", ")))
      ->capture_default_str();
  cmd->footer(algorithm_help());
  cmd->add_option("--protocol", args->protocol,
                  "Protocol, a list or ^list, or auto (NCCL's choice of ll, ll128, simple; ideal on CPU ranks): ideal "
                  "(alpha-beta), ll, ll128, simple")
      ->capture_default_str();
  cmd->add_option("--sizes", args->sizes, "Sizes per rank: 1MiB, 1KiB,4KiB or MIN:MAX")->capture_default_str();
  cmd->add_option("--factor", args->factor, "Step factor for a MIN:MAX range")->capture_default_str();
  cmd->add_option("--ranks", args->ranks, "Use only the first N ranks of the topology");
  cmd->add_option("--hosts", args->hosts, "Group the ranks into H hosts of consecutive ranks (default: each node's host)");
  cmd->add_option("--root", args->root, "Root rank of broadcast and reduce")->capture_default_str();
  cmd->add_option("--channels", args->channels, "Channels (parallel rings/trees); 0: NCCL's search for the protocol")
      ->capture_default_str();
  cmd->add_option("--slice", args->slice, "Pipeline slice per channel and step (default: the protocol's step)");
  cmd->add_option("--calibration", args->calibration, "Calibration JSON: protocol-model constants and/or per-link-class efficiency and latency (validate --calibrate)");
  add_nccl_knob_options(cmd, args->nccl);
  cmd->add_flag("--crossover", args->crossover, "Also find where the chosen algorithm/protocol changes (bisection)");
  cmd->add_flag("--exact", args->exact,
                "Replay every transfer (by default ring and hier_ring use the step-per-phase fast path when it is exact)");
  cmd->add_option("--scenario", args->scenario,
                  "Link and NIC events during the collective (JSON: degrade, fail, restore at a time); every transfer is "
                  "replayed, and the healthy time is reported beside");
  cmd->add_option("--rank-delay", args->rank_delay,
                  "Late ranks: RANK:DELAY pairs, comma-separated (3:50us = rank 3 enters the collective 50 us after the "
                  "first); every transfer is replayed, and the on-time result is reported beside")
      ->delimiter(',');
  cmd->add_option("--arrival-jitter", args->arrival_jitter,
                  "Every rank enters |z| x SIGMA late (half-normal, z drawn per rank from --seed), e.g. 20us");
  cmd->add_option("--seed", args->seed, "Seed of --arrival-jitter (same seed, same output)")->capture_default_str();
  cmd->add_option("--format", args->format, "table, json or csv")->capture_default_str();
  cmd->add_option("--trace", args->trace,
                  "Also write the collective (one --sizes value) as a Chrome trace event JSON file (Perfetto): every "
                  "transfer replayed, one send and one receive track per rank and channel");
  cmd->callback([args, &output] { run_collective(*args, output); });
}

}  // namespace collsim::cli
