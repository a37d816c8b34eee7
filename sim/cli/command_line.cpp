// The collsim command set and how a command line's outcome becomes an exit code; main()
// and `collsim check` (which reruns stored command lines in this process) share both.
#include <cstdio>
#include <iostream>
#include <new>

#include <fmt/format.h>

#include "sim/cli/commands.hpp"
#include "sim/cli/option_fields.hpp"
#include "sim/core/error.hpp"

namespace collsim::cli {

void add_commands(CLI::App& app, const WorkRunner& runner, ReportOutput& output, bool with_check) {
  add_collective_command(app, output);
  add_validate_command(app, output);
  if (with_check) add_check_command(app);
  add_schedule_command(app, output);
  add_topo_command(app, output);
  add_ddp_command(app, output);
  add_sweep_command(app, runner, output);
  add_plan_command(app, runner, output);
  add_llm_command(app, output);
  add_run_command(app, output);
  add_trace_check_command(app);
}

int output_failed(const std::string& why) {
  std::cerr << "collsim: error: standard output: could not write the output (" << why << ")\n";
  return 2;
}

namespace {

int failed(int code, const std::string& message) {
  std::cerr << "collsim: " << message << "\n";
  return code;
}

}  // namespace

int run_command_line(CLI::App& app, const std::function<void()>& parse) {
  try {
    parse();
  } catch (const CLI::Success& e) {  // --help, --help-all, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return failed(2, fmt::format("error: {} (see collsim --help)", e.what()));
  } catch (const CommandFailed& e) {
    return failed(1, e.what());
  } catch (const ConfigError& e) {
    // The library names an options field; the user typed a flag.
    return failed(2, fmt::format("error: {}", with_flag(e).what()));
  } catch (const LimitError& e) {
    return failed(2, fmt::format("error: {}", e.what()));
  } catch (const OverflowError& e) {
    // Inputs each inside their ranges that together leave the clock: bad input (exit 2),
    // reported here when no command could name the flag or file that caused it.
    return failed(2, fmt::format("error: the inputs lead to {}; use smaller sizes or times, or faster links (input ranges: "
                                 "docs/file-formats.md#input-ranges)",
                                 e.what()));
  } catch (const std::bad_alloc&) {
    // The input is too big for the memory this process may use: say so instead of an
    // internal error (exit 2, like the limits checked up front).
    return failed(2, "error: out of memory: the prediction needs more memory than this process can get (the machine's "
                     "memory or its address-space limit); use fewer ranks, a smaller size or a larger slice, or the "
                     "fast path instead of --exact (docs/performance.md)");
  } catch (const std::exception& e) {
    // fmt::print throws when stdout cannot take its text: a full disk, not a defect.
    if (std::ferror(stdout)) return output_failed(e.what());
    return failed(1, fmt::format("internal error: {}", e.what()));
  }
  return 0;
}

}  // namespace collsim::cli
