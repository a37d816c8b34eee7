// collsim: predicts collective communication and data-parallel training step times.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "sim/cli/commands.hpp"
#include "sim/cli/option_fields.hpp"
#include "sim/core/atomic_file.hpp"
#include "sim/core/error.hpp"
#include "sim/core/version.hpp"

namespace {

// What a command printed did not all arrive (`collsim ... > file` on a full disk).
int output_failed(const std::string& why) {
  std::cerr << "collsim: error: standard output: could not write the output (" << why << ")\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  // Logs go to stderr so that stdout carries only the requested output.
  auto logger = spdlog::stderr_color_mt("collsim");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::warn);

  CLI::App app{"collsim: predicts how long collectives and data-parallel training steps take on GPU clusters"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Show help for every subcommand");
  app.set_version_flag("--version", "collsim " + collsim::version_string(), "Print collsim's version and exit");
  app.add_flag_callback("-v,--verbose", [] { spdlog::set_level(spdlog::level::debug); }, "Log progress to stderr");
  collsim::cli::add_collective_command(app);
  collsim::cli::add_validate_command(app);
  collsim::cli::add_check_command(app);
  collsim::cli::add_schedule_command(app);
  collsim::cli::add_topo_command(app);
  collsim::cli::add_ddp_command(app);
  collsim::cli::add_sweep_command(app);
  collsim::cli::add_plan_command(app);
  collsim::cli::add_trace_check_command(app);

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
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "collsim: error: " << e.what() << " (see collsim --help)\n";
    return 2;
  } catch (const collsim::cli::CommandFailed& e) {
    std::cerr << "collsim: " << e.what() << "\n";
    return 1;
  } catch (const collsim::ConfigError& e) {
    // The library names an options field; the user typed a flag.
    std::cerr << "collsim: error: " << collsim::cli::with_flag(e).what() << "\n";
    return 2;
  } catch (const collsim::LimitError& e) {
    std::cerr << "collsim: error: " << e.what() << "\n";
    return 2;
  } catch (const collsim::OverflowError& e) {
    // Inputs each inside their ranges that together leave the clock: bad input (exit 2),
    // reported here when no command could name the flag or file that caused it.
    std::cerr << "collsim: error: the inputs lead to " << e.what()
              << "; use smaller sizes or times, or faster links (input ranges: docs/file-formats.md#input-ranges)\n";
    return 2;
  } catch (const std::exception& e) {
    // fmt::print throws when stdout cannot take its text: a full disk, not a defect.
    if (std::ferror(stdout)) return output_failed(e.what());
    std::cerr << "collsim: internal error: " << e.what() << "\n";
    return 1;
  }
  if (const auto why = collsim::stdout_write_error()) return output_failed(*why);
  return 0;
}
