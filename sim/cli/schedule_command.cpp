#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "sim/algo/host_groups.hpp"
#include "sim/algo/registry.hpp"
#include "sim/algo/symbolic_executor.hpp"
#include "sim/cli/commands.hpp"
#include "sim/core/error.hpp"
#include "sim/core/unit_parse.hpp"
#include "sim/core/text.hpp"
#include "sim/report/schedule_report.hpp"

namespace collsim::cli {

namespace {

struct ScheduleArgs {
  std::string op = "allreduce";
  std::string algo = std::string(default_algorithm());
  int ranks = 8;
  std::optional<int> hosts;
  int root = 0;
  std::string size = "1MiB";
  int channels = 1;
  std::string slice;
  bool verify = false;
  bool list = false;
  std::string format = "table";
};

void run_schedule(const ScheduleArgs& a, ReportOutput& output) {
  const auto op = enum_from<CollectiveOp>(a.op);
  if (!op) throw ConfigError("--op", "", in_quotes(a.op), fmt::format("one of: {}", fmt::join(enum_names<CollectiveOp>(), ", ")));
  if (!is_algorithm(a.algo)) {
    throw ConfigError("--algo", "", in_quotes(a.algo), fmt::format("one of: {}", fmt::join(algorithm_names(), ", ")));
  }
  if (!supports(a.algo, *op)) {
    throw ConfigError("--algo", "", in_quotes(a.algo), fmt::format("an algorithm that implements {}", a.op));
  }
  if (a.ranks < 1 || a.ranks > 100000) throw ConfigError("--ranks", "", std::to_string(a.ranks), "a rank count from 1 to 100000");
  const int hosts = a.hosts.value_or(a.ranks);
  if (hosts < 1 || hosts > a.ranks) {
    throw ConfigError("--hosts", "", std::to_string(hosts), fmt::format("a host count from 1 to {} (the ranks)", a.ranks));
  }
  if (a.root < 0 || a.root >= a.ranks) {
    throw ConfigError("--root", "", std::to_string(a.root), fmt::format("a rank from 0 to {}", a.ranks - 1));
  }
  if (a.channels < 1 || a.channels > 64) throw ConfigError("--channels", "", std::to_string(a.channels), "1 to 64");
  Collective c{*op, a.ranks, a.root, Bytes{}};
  AlgorithmOptions opt;
  opt.channels = a.channels;
  // A size or slice past kMaxMessageBytes could make byte sums over the ranks wrap.
  const std::string size_range = fmt::format("{}, at most {}", kExpectedSize, to_string(kMaxMessageBytes));
  try {
    c.size = parse_size(a.size);
  } catch (const UnitError& e) {
    throw ConfigError("--size", "", e.value(), size_range);
  }
  if (c.size > kMaxMessageBytes) throw ConfigError("--size", "", in_quotes(a.size), size_range);
  if (!a.slice.empty()) {
    try {
      opt.slice_bytes = parse_size(a.slice);
    } catch (const UnitError& e) {
      throw ConfigError("--slice", "", e.value(), size_range);
    }
    if (opt.slice_bytes.count < 1 || opt.slice_bytes > kMaxMessageBytes) {
      throw ConfigError("--slice", "", in_quotes(a.slice), fmt::format("a slice of at least 1 B and at most {}", to_string(kMaxMessageBytes)));
    }
  }
  opt.host_of_rank = block_hosts(a.ranks, hosts);
  if (needs_even_hosts(a.algo) && a.ranks % hosts != 0) {
    throw ConfigError("--hosts", "", std::to_string(hosts),
                      fmt::format("a host count that divides {} ranks ({} needs the same ranks on every host)", a.ranks,
                                  a.algo));
  }
  const OutputFormat format = parse_format_option(a.format);
  const Schedule s = build_schedule(a.algo, c, opt);
  ScheduleReportOptions ro;
  ro.hosts = hosts;
  ro.list_transfers = a.list;
  if (a.verify) ro.verification = verify_schedule(s);
  output.put(format, schedule_report_views(s, ro));
  if (ro.verification && !ro.verification->ok) throw InternalError("schedule failed verification: " + ro.verification->error);
}

}  // namespace

void add_schedule_command(CLI::App& app, ReportOutput& output) {
  auto args = std::make_shared<ScheduleArgs>();
  CLI::App* cmd = app.add_subcommand("schedule", "Build one algorithm's schedule: steps, transfers, bytes per rank");
  cmd->add_option("--op", args->op, "Collective: allreduce, reducescatter, allgather, broadcast, reduce, alltoall")
      ->capture_default_str();
  cmd->add_option("--algo", args->algo, fmt::format("Algorithm: {}", fmt::join(algorithm_names(), ", ")))
      ->capture_default_str();
  cmd->footer(algorithm_help());
  cmd->add_option("--ranks", args->ranks, "Number of ranks")->capture_default_str();
  cmd->add_option("--hosts", args->hosts, "Hosts, as contiguous blocks of ranks (default: one rank per host)");
  cmd->add_option("--root", args->root, "Root rank of broadcast and reduce")->capture_default_str();
  cmd->add_option("--size", args->size, "nccl-tests size in bytes with a unit")->capture_default_str();
  cmd->add_option("--channels", args->channels, "Channels (parallel rings/trees)")->capture_default_str();
  cmd->add_option("--slice", args->slice, "Pipeline slice per channel (default: none)");
  cmd->add_flag("--verify", args->verify, "Prove the schedule with the symbolic executor");
  cmd->add_flag("--list", args->list, "List every transfer with its dependencies");
  cmd->add_option("--format", args->format, "table or json")->capture_default_str();
  cmd->callback([args, &output] { run_schedule(*args, output); });
}

}  // namespace collsim::cli
