// collsim-mpi: collsim's batch commands (plan, sweep) with their work items spread over
// the ranks of an MPI job: `mpirun -np 4 collsim-mpi plan PLAN.json`. Rank 0 prints the
// output, byte for byte what `collsim` prints for the same command line; the other ranks
// print nothing.
#include <mpi.h>

#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "sim/cli/captured_run.hpp"
#include "sim/cli/commands.hpp"
#include "sim/core/atomic_file.hpp"
#include "sim/core/version.hpp"
#include "sim/mpi/mpi_runner.hpp"

namespace {

// Runs the command line on this rank; returns its exit code.
int run(int argc, char** argv, const collsim::MpiRunner& runner) {
  CLI::App app{"collsim-mpi: collsim's plan and sweep with their work items spread over the ranks of an MPI job "
               "(output on rank 0, identical to collsim's)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "collsim-mpi " + collsim::version_string(), "Print the version and exit");
  app.add_flag_callback("-v,--verbose", [] { spdlog::set_level(spdlog::level::debug); }, "Log progress to stderr");
  collsim::cli::ReportOutput output;
  collsim::cli::add_sweep_command(app, runner, output);
  collsim::cli::add_plan_command(app, runner, output);
  if (const int rc = collsim::cli::run_command_line(app, [&] { app.parse(argc, argv); }); rc != 0) return rc;
  if (const auto why = collsim::stdout_write_error()) return collsim::cli::output_failed(*why);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int provided = MPI_THREAD_SINGLE;
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) {
    std::cerr << "collsim-mpi: error: MPI_Init_thread failed\n";
    return 1;
  }
  auto logger = spdlog::stderr_color_mt("collsim");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::warn);
  const collsim::MpiRunner runner(MPI_COMM_WORLD, provided >= MPI_THREAD_SERIALIZED);

  int rc = 0;
  if (runner.rank() == 0) {
    rc = run(argc, argv, runner);
  } else {
    // What a worker would print repeats rank 0's (the same command on the same input), so
    // its output is kept, and handed to rank 0 only when this rank never served.
    std::ostringstream out, err;
    const collsim::cli::Redirected muted(std::cout, out), kept(std::cerr, err);
    spdlog::set_level(spdlog::level::off);
    try {
      rc = run(argc, argv, runner);
      runner.leave_without_serving(err.str());
    } catch (const collsim::WorkerRankDone&) {
      rc = 0;
    }
  }
  MPI_Finalize();
  return rc;
}
