// collsim._collsim: the collsim command set inside a Python process. One entry point runs
// a command line in process (sim/cli/captured_run.hpp) and hands back its exit code, its
// report's JSON text and its error messages; python/collsim/__init__.py builds the Python
// API on it, so every figure and every message is the CLI's own.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <string>
#include <tuple>
#include <vector>

#include "sim/cli/captured_run.hpp"
#include "sim/core/version.hpp"

namespace py = pybind11;

PYBIND11_MODULE(_collsim, m) {
  m.doc() = "collsim's command set in process (use the collsim package, not this module)";
  // As in the collsim binary: library warnings go to stderr, never into a report.
  if (!spdlog::get("collsim")) spdlog::set_default_logger(spdlog::stderr_color_mt("collsim"));
  spdlog::set_level(spdlog::level::warn);
  m.def(
      "run_command",
      [](const std::vector<std::string>& args) {
        collsim::cli::CapturedRun run;
        {
          // Simulations take seconds: other Python threads may run meanwhile.
          const py::gil_scoped_release release;
          run = collsim::cli::run_captured(args, true);
        }
        return std::tuple<int, std::string, std::string>(run.exit_code, run.report ? run.report->dump() : std::string(),
                                                         run.errors);
      },
      py::arg("args"),
      "Runs one collsim command line (without the program name); returns (exit code, report JSON text, stderr text)");
  m.def("version", [] { return collsim::version_string(); }, "collsim's version (the same as collsim --version)");
}
