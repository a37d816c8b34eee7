// The options that say how a batch command (plan, sweep) runs its work items rather than
// what it computes: --jobs, --journal, --resume and --progress. None of them changes the
// output; they are left out of the journal's fingerprint for that reason.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "sim/core/work_pool.hpp"

namespace collsim::cli {

struct RunControlArgs {
  int jobs = 0;  // 0 = one per core
  std::string journal;
  bool resume = false;
  bool progress = false;
};

void add_run_control_options(CLI::App* cmd, RunControlArgs& args);

// WorkOptions for `command`: threads, journal, and a progress line on stderr (a bar
// redrawn in place on a terminal; with --progress elsewhere, a plain line every few
// seconds and at the end, for batch logs). `inputs` are what the fingerprint covers: the
// command's options other than these (CLI::App::config_to_str) and the input files' text.
[[nodiscard]] WorkOptions work_options(const RunControlArgs& args, const std::string& command,
                                       const std::vector<std::string>& inputs);

// The command's own options as text (names and values, defaults included), without the
// run-control options above: the part of the fingerprint that comes from the command line.
[[nodiscard]] std::string options_text(const CLI::App& cmd);

// With a journal, one line on stderr: how many items came from it and how many ran now.
void report_journal_use(const RunControlArgs& args, const WorkStats& stats);

// A text file's content for a fingerprint ("" when it cannot be read: the command's own
// loading reports that).
[[nodiscard]] std::string file_text(const std::string& path);

}  // namespace collsim::cli
