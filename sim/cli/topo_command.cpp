// `collsim topo show|validate|dot|nccl FILE`: describe, check and draw a topology file,
// and show the channel graph and tuning figures NCCL would see on it; `topo compare A B`
// (equal up to node ids) and `topo import-nccl DUMP.xml` (see nccl_import_command.cpp).
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "sim/cli/commands.hpp"
#include "sim/cli/nccl_options.hpp"
#include "sim/coll/nccl_graph_summary.hpp"
#include "sim/coll/protocol.hpp"
#include "sim/coll/selection.hpp"
#include "sim/core/data_dir.hpp"
#include "sim/core/error.hpp"
#include "sim/core/text.hpp"
#include "sim/report/nccl_graph_report.hpp"
#include "sim/topo/dot_writer.hpp"
#include "sim/topo/loader.hpp"
#include "sim/topo/topology_compare.hpp"
#include "sim/topo/topology_summary.hpp"

namespace collsim::cli {

namespace {

std::string gbs(Bandwidth b) { return fmt::format("{:.6g} GB/s", b.gb_per_s()); }

void print_summary(std::ostream& os, const Topology& t) {
  const TopologySummary s = summarize(t);
  os << fmt::format("topology   {} ({})\n", s.name, t.source);
  std::string rank_kind = t.ranks.empty() ? "none" : std::string(to_string(t.nodes[t.ranks.front()].kind));
  os << fmt::format("ranks      {} ({})\n", s.ranks, rank_kind);
  int gpus = 0;
  std::vector<std::string> models;
  for (const auto& [model, count] : s.gpus_by_model) {
    gpus += count;
    const auto arch = gpu_arch_from_model(model);
    models.push_back(model.empty() ? fmt::format("{} x (no model)", count)
                                   : fmt::format("{} x {} ({})", count, model, arch ? to_string(*arch) : "?"));
  }
  os << fmt::format("gpus       {}{}{}\n", gpus, models.empty() ? "" : ": ", fmt::join(models, ", "));
  const auto hosts = s.node_counts.count("host") ? s.node_counts.at("host") : 0;
  os << fmt::format("hosts      {}\n", hosts);
  std::vector<std::string> counts;
  for (const auto& [kind, count] : s.node_counts) counts.push_back(fmt::format("{} {}", kind, count));
  os << fmt::format("nodes      {}\n", fmt::join(counts, ", "));
  if (hosts > 0) {
    os << (s.min_nics_per_host == s.max_nics_per_host
               ? fmt::format("nics/host  {}\n", s.min_nics_per_host)
               : fmt::format("nics/host  {} to {}\n", s.min_nics_per_host, s.max_nics_per_host));
  }
  if (s.max_net_latency > Time{}) {
    os << fmt::format("net lat    {} us per network step (the NICs' plugin latency, net_latency)\n", s.max_net_latency.us());
  }
  os << "links      kind       directed  lanes    payload per directed link\n";
  for (const auto& l : s.links) {
    const std::string rate = l.min_rate == l.max_rate ? gbs(l.min_rate) : fmt::format("{} to {}", gbs(l.min_rate), gbs(l.max_rate));
    os << fmt::format("           {:<10} {:<9} {:<8} {}\n", to_string(l.kind), l.links, l.lanes, rate);
  }
  const Injection& i = s.first_rank_injection;
  os << fmt::format("injection  per rank{}: nvlink {}, pcie {}, net {}\n",
                    s.uniform_injection ? " (every rank alike)" : " (rank 0; ranks differ)", gbs(i.nvlink), gbs(i.pcie),
                    gbs(i.net));
  if (s.ranks >= 2) {
    os << fmt::format("bisection  {} (max flow, ranks 0-{} to ranks {}-{}, one direction)\n", gbs(s.bisection),
                      s.ranks / 2 - 1, s.ranks / 2, s.ranks - 1);
  }
}

Topology load_or_report(const std::string& path) {
  TopologyCheck c = check_topology_file(resolve_shipped_file(path, "topologies"));
  if (c.errors.empty()) return std::move(*c.topology);
  if (c.errors.size() == 1) throw c.errors.front();
  for (const auto& e : c.errors) std::cerr << "collsim: error: " << e.what() << "\n";
  throw ConfigError(path, "", "", fmt::format("a valid topology ({} errors, listed above)", c.errors.size()));
}

OutputFormat parse_nccl_format(const std::string& text) {
  if (text == "text") return OutputFormat::Table;
  if (text == "json") return OutputFormat::Json;
  throw ConfigError("--format", "", in_quotes(text), "one of: text, json");
}

}  // namespace

void add_topo_command(CLI::App& app, ReportOutput& output) {
  CLI::App* topo = app.add_subcommand("topo", "Describe, check or draw a topology file");
  topo->require_subcommand(1);
  auto file = std::make_shared<std::string>();

  CLI::App* show = topo->add_subcommand("show", "GPUs, hosts, links by kind, per-rank injection and bisection bandwidth");
  show->add_option("FILE", *file, "Topology JSON file")->required();
  show->callback([file] { print_summary(std::cout, load_or_report(*file)); });

  CLI::App* validate = topo->add_subcommand("validate", "Exit 0 if FILE is valid; otherwise list every error and exit 2");
  validate->add_option("FILE", *file, "Topology JSON file")->required();
  validate->callback([file] {
    const Topology t = load_or_report(*file);
    std::cout << fmt::format("{}: valid: {} ranks, {} nodes, {} directed links\n", *file, t.rank_count(), t.nodes.size(),
                             t.links.size());
  });

  CLI::App* dot = topo->add_subcommand("dot", "Graphviz (dot) drawing of FILE on stdout");
  dot->add_option("FILE", *file, "Topology JSON file")->required();
  dot->callback([file] { write_dot(std::cout, load_or_report(*file)); });

  CLI::App* nccl = topo->add_subcommand(
      "nccl", "What NCCL_DEBUG_SUBSYS=GRAPH,TUNING would report: host 0's path types, the ring channels, tuning figures");
  nccl->add_option("FILE", *file, "Topology JSON file")->required();
  auto format = std::make_shared<std::string>("text");
  nccl->add_option("--format", *format, "text or json")->capture_default_str();
  auto knobs = std::make_shared<NcclKnobArgs>();
  add_nccl_knob_options(nccl, *knobs);
  nccl->callback([file, format, knobs, &output] {
    const OutputFormat f = parse_nccl_format(*format);
    // The graph and tuning table under the knobs that shape them (channels, NVLS,
    // cross-NIC); NCCL_ALGO / NCCL_PROTO choose among the rows, which the table lists all,
    // except that NCCL_PROTO turns on LL128 where NCCL leaves it off by default, and
    // NCCL_ALGO=CollNet adds CollNet's rows, which auto never picks.
    std::string algo = "auto", protocol = "auto";
    ProtocolModel model = nccl_default_model();
    apply_nccl_env(resolve_nccl_knobs(*knobs, algo, protocol), model);
    const std::vector<std::string> asked = parse_algorithm_list(algo, CollectiveOp::AllReduce);
    output.put(f, nccl_graph_report_views(summarize_nccl_graph(load_or_report(*file), model, is_auto(protocol), asked)));
  });

  CLI::App* compare = topo->add_subcommand(
      "compare", "Exit 0 if FIRST and SECOND are the same machine up to node ids; otherwise list the differences, exit 1");
  auto second = std::make_shared<std::string>();
  compare->add_option("FIRST", *file, "Topology JSON file")->required();
  compare->add_option("SECOND", *second, "Topology JSON file")->required();
  compare->callback([file, second] {
    const Topology a = load_or_report(*file);
    const Topology b = load_or_report(*second);
    const auto diffs = topology_differences(a, b);
    if (diffs.empty()) {
      std::cout << fmt::format("{} and {}: equal up to ids ({} nodes, {} directed links, {} ranks)\n", *file, *second,
                               a.nodes.size(), a.links.size(), a.rank_count());
      return;
    }
    for (const auto& d : diffs) std::cout << d << "\n";
    throw CommandFailed(fmt::format("{} and {} differ ({} difference{})", *file, *second, diffs.size(),
                                    diffs.size() == 1 ? "" : "s"));
  });

  add_import_nccl_command(*topo);
}

}  // namespace collsim::cli
