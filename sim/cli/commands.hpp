// The collsim subcommands. Each registers its options and its action on the app.
#pragma once

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>

#include "sim/cli/report_output.hpp"
#include "sim/core/work_pool.hpp"
#include "sim/report/collective_table.hpp"
#include "sim/topo/topology.hpp"

namespace collsim::cli {

// The commands that print a report put it into `output`.
void add_collective_command(CLI::App& app, ReportOutput& output);
void add_validate_command(CLI::App& app, ReportOutput& output);
void add_check_command(CLI::App& app);

// A command that ran correctly but whose verdict is "fail" (a tolerance broken, a
// prediction drifted): main() prints the message and exits 1.
class CommandFailed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Registers every subcommand on `app` in the order --help lists them (`check` only when
// `with_check`: a command that check reruns may not be check). The batch commands (plan,
// sweep) run their work items on `runner`: threads here, MPI ranks in collsim-mpi.
void add_commands(CLI::App& app, const WorkRunner& runner, ReportOutput& output, bool with_check);
// Runs `parse` (CLI11 parsing a command line, which runs the command) and maps what it
// throws to collsim's exit code, with the message on stderr: 0; 1 for a "fail" verdict or
// an internal error; 2 for bad input.
[[nodiscard]] int run_command_line(CLI::App& app, const std::function<void()>& parse);
// Says that standard output did not take all its text (`why`); returns exit code 2.
int output_failed(const std::string& why);

void add_schedule_command(CLI::App& app, ReportOutput& output);
void add_topo_command(CLI::App& app, ReportOutput& output);  // collsim topo show|validate|dot|nccl|compare FILE
void add_import_nccl_command(CLI::App& topo);  // collsim topo import-nccl DUMP.xml
void add_ddp_command(CLI::App& app, ReportOutput& output);
void add_sweep_command(CLI::App& app, const WorkRunner& runner, ReportOutput& output);
void add_plan_command(CLI::App& app, const WorkRunner& runner, ReportOutput& output);  // collsim plan PLAN.json (capacity planning)
void add_llm_command(CLI::App& app, ReportOutput& output);  // collsim llm: TP x PP x DP transformer step
void add_run_command(CLI::App& app, ReportOutput& output);  // collsim run: a training run with failures
void add_trace_check_command(CLI::App& app);  // hidden: collsim check-trace FILE...

// --topology FILE (or the built-in node when empty), cut to the first `ranks` ranks.
[[nodiscard]] Topology load_topology_option(const std::string& path, std::optional<int> ranks);
// A duration flag ("5min", "30s") in seconds; throws ConfigError naming `flag`.
[[nodiscard]] double duration_option(const char* flag, const std::string& text);
// "RANK:VALUE" items of a comma list (--rank-speed, --membership, --rank-delay): the
// number before the colon read whole, the text after it as given; ConfigError naming
// `flag` with `expected` for an item without a colon or a number.
[[nodiscard]] std::vector<std::pair<int, std::string>> rank_pairs_option(const char* flag,
                                                                        const std::vector<std::string>& items,
                                                                        const char* expected);
// Parses --format; throws ConfigError naming the flag.
[[nodiscard]] OutputFormat parse_format_option(const std::string& text);
// The --help footer of a command that takes --algo: each algorithm and its description.
[[nodiscard]] std::string algorithm_help();

}  // namespace collsim::cli
