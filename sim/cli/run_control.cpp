#include "sim/cli/run_control.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace collsim::cli {

namespace {

// Run-control options are marked non-configurable: config_to_str leaves them out.
constexpr double kLogLineEvery = 5.0;  // seconds between plain progress lines

std::string duration_text(double s) {
  if (s < 60) return fmt::format("{:.0f} s", s);
  if (s < 3600) return fmt::format("{:.0f} min {:02.0f} s", std::floor(s / 60), std::fmod(s, 60));
  return fmt::format("{:.0f} h {:02.0f} min", std::floor(s / 3600), std::floor(std::fmod(s, 3600) / 60));
}

// Progress on stderr: done / total, items per second over this run, and the ETA.
WorkProgress progress_printer(bool terminal) {
  struct State {
    std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
    double last_line = -kLogLineEvery;
    std::size_t first = 0;  // items already done when this run started (journaled)
    bool started = false;
  };
  auto st = std::make_shared<State>();
  return [st, terminal](std::size_t done, std::size_t total) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - st->t0).count();
    if (!st->started) {
      st->started = true;
      st->first = done > 0 ? done - 1 : 0;
    }
    const std::size_t now = done - std::min(done, st->first);
    const double rate = elapsed > 0 ? static_cast<double>(now) / elapsed : 0;
    const std::string eta = rate > 0 && done < total ? duration_text(static_cast<double>(total - done) / rate) : "-";
    const std::string stats = fmt::format("{}/{} items, {:.2f} items/s, {} elapsed, ETA {}", done, total, rate,
                                          duration_text(elapsed), eta);
    if (terminal) {
      const int width = 30;
      const auto filled = static_cast<int>(width * done / std::max<std::size_t>(total, 1));
      std::cerr << fmt::format("\r[{}{}] {}", std::string(filled, '#'), std::string(width - filled, '.'), stats)
                << (done == total ? "\n" : "") << std::flush;
    } else if (done == total || elapsed - st->last_line >= kLogLineEvery) {
      st->last_line = elapsed;
      std::cerr << "collsim: progress: " << stats << "\n" << std::flush;
    }
  };
}

}  // namespace

void add_run_control_options(CLI::App* cmd, RunControlArgs& args) {
  cmd->add_option("--jobs", args.jobs, "Worker threads (0 = one per core); output is the same for any count")
      ->capture_default_str()
      ->configurable(false);
  cmd->add_option("--journal", args.journal,
                  "JSON-lines file that records each finished item as it finishes, to --resume a killed run")
      ->configurable(false);
  cmd->add_flag("--resume", args.resume,
                "Continue the run recorded in --journal: its finished items are not run again (a missing journal "
                "starts fresh)")
      ->configurable(false);
  cmd->add_flag("--progress", args.progress,
                "Progress on stderr even when it is not a terminal (a plain line every few seconds)")
      ->configurable(false);
}

WorkOptions work_options(const RunControlArgs& args, const std::string& command, const std::vector<std::string>& inputs) {
  if (args.jobs < 0 || args.jobs > 1024) {
    throw ConfigError("--jobs", "", std::to_string(args.jobs), "a thread count from 1 to 1024 (0 = one per core)");
  }
  if (args.resume && args.journal.empty()) throw ConfigError("--resume", "", "", "--journal FILE beside it (the run to continue)");
  WorkOptions o;
  o.jobs = args.jobs > 0 ? args.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  o.journal = args.journal;
  o.resume = args.resume;
  o.command = command;
  o.fingerprint = work_fingerprint(inputs);
  const bool terminal = isatty(STDERR_FILENO) != 0;
  if (terminal || args.progress) o.progress = progress_printer(terminal);
  return o;
}

std::string options_text(const CLI::App& cmd) { return cmd.config_to_str(true, false); }

void report_journal_use(const RunControlArgs& args, const WorkStats& stats) {
  if (args.journal.empty()) return;
  std::cerr << fmt::format("collsim: journal {}: {} items taken from it, {} evaluated now\n", args.journal, stats.resumed,
                           stats.evaluated);
}

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace collsim::cli
