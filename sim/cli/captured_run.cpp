#include "sim/cli/captured_run.hpp"

#include <iostream>
#include <sstream>

#include "sim/cli/commands.hpp"

namespace collsim::cli {

CapturedRun run_captured(const std::vector<std::string>& args, bool keep_errors) {
  ReportOutput output;
  output.capture_json();
  const ThreadRunner runner;
  CLI::App app{"collsim"};
  app.require_subcommand(1);
  add_commands(app, runner, output, false);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
  std::ostringstream out, err;
  const Redirected muted(std::cout, out);
  std::optional<Redirected> kept;
  if (keep_errors) kept.emplace(std::cerr, err);
  CapturedRun run;
  run.exit_code = run_command_line(app, [&] { app.parse(reversed); });
  run.report = output.captured();
  run.errors = err.str();
  return run;
}

}  // namespace collsim::cli
