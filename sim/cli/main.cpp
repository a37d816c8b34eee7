// collsim: predicts collective communication and data-parallel training step times.
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "sim/cli/commands.hpp"
#include "sim/core/atomic_file.hpp"
#include "sim/core/heap_reuse.hpp"
#include "sim/core/version.hpp"

int main(int argc, char** argv) {
  collsim::reuse_freed_memory();
  // Logs go to stderr so that stdout carries only the requested output.
  auto logger = spdlog::stderr_color_mt("collsim");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::warn);

  CLI::App app{"collsim: predicts how long collectives and data-parallel training steps take on GPU clusters"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Show help for every subcommand");
  app.set_version_flag("--version", "collsim " + collsim::version_string(), "Print collsim's version and exit");
  app.add_flag_callback("-v,--verbose", [] { spdlog::set_level(spdlog::level::debug); }, "Log progress to stderr");
  collsim::cli::ReportOutput output;
  const collsim::ThreadRunner runner;
  collsim::cli::add_commands(app, runner, output, true);

  // CLI11 says only "A subcommand is required" for a misspelt one: name it and the choices.
  if (argc > 1 && argv[1][0] != '-') {
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) names.push_back(sub->get_name());
    if (std::find(names.begin(), names.end(), argv[1]) == names.end()) {
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      std::cerr << "collsim: error: unknown command \"" << argv[1] << "\", expected one of: " << list << " (see collsim --help)\n";
      return 2;
    }
  }
  if (const int rc = collsim::cli::run_command_line(app, [&] { app.parse(argc, argv); }); rc != 0) return rc;
  if (const auto why = collsim::stdout_write_error()) return collsim::cli::output_failed(*why);
  return 0;
}
