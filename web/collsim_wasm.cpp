// collsim in the browser: the collsim command set compiled to WebAssembly (web/CMakeLists.txt).
// As in the Python module (python/collsim_module.cpp), one entry point runs a command line
// in process (sim/cli/captured_run.hpp) and hands back its exit code, its report's JSON and
// its error messages, so every figure and every message on the page is the CLI's own.
// The shipped topologies and workloads are embedded at /collsim (COLLSIM_DATA_DIR); files
// the page writes (a generated star, an uploaded topology) go to the working folder /work.
#include <emscripten/emscripten.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/cli/captured_run.hpp"
#include "sim/core/version.hpp"

namespace {

void set_up_once() {
  static const bool done = [] {
    setenv("COLLSIM_DATA_DIR", "/collsim", 1);
    std::filesystem::create_directories("/work");
    (void)chdir("/work");
    spdlog::set_default_logger(spdlog::stderr_logger_mt("collsim"));
    spdlog::set_level(spdlog::level::warn);
    return true;
  }();
  (void)done;
}

std::string& last_answer() {
  static std::string text;
  return text;
}

}  // namespace

extern "C" {

// `args_json`: a JSON array of strings, the command line without the program name. Returns
// {"exit_code": int, "report": the report's JSON or null, "errors": stderr text}; the text
// stays valid until the next call.
EMSCRIPTEN_KEEPALIVE const char* collsim_run(const char* args_json) {
  set_up_once();
  nlohmann::ordered_json answer;
  try {
    const auto args = nlohmann::json::parse(args_json).get<std::vector<std::string>>();
    const auto run = collsim::cli::run_captured(args, true);
    answer["exit_code"] = run.exit_code;
    answer["report"] = run.report ? *run.report : nlohmann::ordered_json();
    answer["errors"] = run.errors;
  } catch (const std::exception& e) {
    // Only a malformed call from the page lands here (the command reports its own errors).
    answer = {{"exit_code", 2}, {"report", nullptr}, {"errors", std::string("collsim web: ") + e.what() + "\n"}};
  }
  last_answer() = answer.dump();
  return last_answer().c_str();
}

// `value` with `decimals` digits after the point, as the CLI's tables print it ("{:.2f}"
// through fmt: ties to even, where JavaScript's toFixed rounds them up).
EMSCRIPTEN_KEEPALIVE const char* collsim_fixed(double value, int decimals) {
  static std::string text;
  text = fmt::format("{:.{}f}", value, decimals < 0 ? 0 : decimals > 12 ? 12 : decimals);
  return text.c_str();
}

EMSCRIPTEN_KEEPALIVE const char* collsim_version() {
  set_up_once();
  return collsim::version_string().c_str();
}

}  // extern "C"
