#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "sim/cli/commands.hpp"
#include "sim/coll/predict.hpp"
#include "sim/core/error.hpp"
#include "sim/core/size_list.hpp"
#include "sim/measure/calibration.hpp"

namespace collsim::cli {

namespace {

struct CollectiveArgs {
  std::string topology;
  std::string op = "allreduce";
  std::string algo = "ring";
  std::string sizes = "1KiB:1GiB";
  double factor = 2.0;
  std::optional<int> ranks;
  std::string format = "table";
  std::string calibration;
};

void run_collective(const CollectiveArgs& a) {
  const auto op = collective_op_from(a.op);
  if (!op) throw ConfigError("--op", "", fmt::format("\"{}\"", a.op), fmt::format("one of: {}", fmt::join(collective_op_names(), ", ")));
  if (!is_algorithm(a.algo)) {
    throw ConfigError("--algo", "", fmt::format("\"{}\"", a.algo), fmt::format("one of: {}", fmt::join(algorithm_names(), ", ")));
  }
  if (!supports(a.algo, *op)) {
    throw ConfigError("--algo", "", fmt::format("\"{}\"", a.algo), fmt::format("an algorithm that implements {}", a.op));
  }
  std::vector<Bytes> sizes;
  try {
    sizes = parse_size_list(a.sizes, a.factor);
  } catch (const UnitError& e) {
    throw ConfigError("--sizes", "", e.value(), e.expected());
  }
  const OutputFormat format = parse_format_option(a.format);
  Topology topo = load_topology_option(a.topology, a.ranks);
  if (!a.calibration.empty()) apply_calibration(topo, load_calibration_file(a.calibration));
  LinkGraph graph(topo);
  CollectiveReport report;
  report.topology = topo.name;
  for (Bytes s : sizes) {
    const Collective c{*op, topo.rank_count(), 0, s};
    report.rows.push_back(predict_collective(graph, c, a.algo));
  }
  write_collective_report(std::cout, report, format);
}

}  // namespace

void add_collective_command(CLI::App& app) {
  auto args = std::make_shared<CollectiveArgs>();
  CLI::App* cmd = app.add_subcommand("collective", "Predict one collective over a range of sizes (nccl-tests columns)");
  cmd->add_option("--topology", args->topology, "Topology JSON file (default: built-in 8 x H100 NVSwitch node)");
  cmd->add_option("--op", args->op, "Collective: allreduce")->capture_default_str();
  cmd->add_option("--algo", args->algo, "Algorithm: ring, ps")->capture_default_str();
  cmd->add_option("--sizes", args->sizes, "Sizes per rank: 1MiB, 1KiB,4KiB or MIN:MAX")->capture_default_str();
  cmd->add_option("--factor", args->factor, "Step factor for a MIN:MAX range")->capture_default_str();
  cmd->add_option("--ranks", args->ranks, "Use only the first N ranks of the topology");
  cmd->add_option("--format", args->format, "table, json or csv")->capture_default_str();
  cmd->add_option("--calibration", args->calibration, "Calibration file (collsim validate --calibrate)");
  cmd->callback([args] { run_collective(*args); });
}

}  // namespace collsim::cli
