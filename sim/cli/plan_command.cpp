// `collsim plan PLAN.json`: every candidate x world size x workload x strategy of a
// capacity plan, as a table/JSON/CSV on stdout and optionally a report folder.
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "sim/cli/commands.hpp"
#include "sim/core/atomic_file.hpp"
#include "sim/core/data_dir.hpp"
#include "sim/core/error.hpp"
#include "sim/report/plan_report.hpp"
#include "sim/train/workload.hpp"

namespace collsim::cli {

namespace {

struct PlanArgs {
  std::string plan;
  std::string format = "table";
  std::string report;
  int jobs = 0;
  bool progress = false;
};

void write_file(const std::filesystem::path& p, const std::string& text) {
  write_file_atomically(p, text, "--report");
}

// Runs the shipped plot script on DIR/plan.json; returns the PNG names it wrote, or an
// empty list and the reason in `note`.
std::vector<std::string> render_plots(const std::filesystem::path& dir, std::string& note) {
  const auto found = shipped_script("plan_plots.py");
  if (!found) {
    note = "PNG plots not written: the plot script plan_plots.py is not in collsim's data folder (share/collsim/scripts).";
    return {};
  }
  const std::filesystem::path script = *found;
  // $COLLSIM_PYTHON, else Debian's /usr/bin/python3 (where apt's python3-matplotlib
  // lives, whatever python3 comes first on PATH), else python3 on PATH.
  std::string python = "python3";
  if (const char* env = std::getenv("COLLSIM_PYTHON"); env && *env) {
    python = env;
  } else if (std::filesystem::exists("/usr/bin/python3")) {
    python = "/usr/bin/python3";
  }
  const std::string cmd = fmt::format("'{}' '{}' '{}' 2>&1", python, script.string(), dir.string());
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) {
    note = "PNG plots not written: could not start python3.";
    return {};
  }
  std::string output;
  std::array<char, 4096> buf{};
  while (std::fgets(buf.data(), static_cast<int>(buf.size()), pipe)) output += buf.data();
  const int status = pclose(pipe);
  const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::vector<std::string> pngs;
  if (rc != 0) {
    std::string why = output;
    while (!why.empty() && why.back() == '\n') why.pop_back();
    if (rc == 127) why = fmt::format("{} was not found", python);
    note = fmt::format("PNG plots not written: {} (install python3 and python3-matplotlib, e.g. scripts/setup.sh).", why);
    return {};
  }
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.ends_with(".png")) pngs.push_back(line);
  }
  return pngs;
}

void run_plan_command(const PlanArgs& a, ReportOutput& output) {
  const OutputFormat format = parse_format_option(a.format);
  if (a.jobs < 0 || a.jobs > 1024) throw ConfigError("--jobs", "", std::to_string(a.jobs), "a thread count from 1 to 1024 (0 = one per core)");
  const int jobs = a.jobs > 0 ? a.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const Plan plan = load_plan_file(resolve_shipped_file(a.plan, "plans"));
  PlanReport rep;
  rep.plan = &plan;
  for (const auto& w : plan.workloads) {
    rep.workload_names.push_back(w.name);
    rep.activations_known.push_back(load_workload_file(w.path).activation_bytes_per_sample().count > 0);
  }

  const bool bar = a.progress || isatty(STDERR_FILENO) != 0;
  const auto t0 = std::chrono::steady_clock::now();
  const PlanProgress progress = [&](std::size_t done, std::size_t total) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const int width = 30;
    const int filled = static_cast<int>(width * done / total);
    std::cerr << fmt::format("\r[{}{}] {}/{} combinations, {:.1f} s", std::string(filled, '#'),
                             std::string(width - filled, '.'), done, total, elapsed)
              << (done == total ? "\n" : "") << std::flush;
  };
  rep.result = evaluate_plan(plan, jobs, bar ? progress : PlanProgress{});
  output.put(format, plan_report_views(rep));

  if (a.report.empty()) return;
  // The report is written to a folder beside DIR and swapped in whole: a failed or killed
  // run leaves the previous report as it was, never old and new files mixed.
  StagedFolder staged(std::filesystem::path(a.report), "--report");
  const std::filesystem::path& dir = staged.path();
  std::ostringstream json, csv, md;
  write_report(json, OutputFormat::Json, plan_report_views(rep));
  write_report(csv, OutputFormat::Csv, plan_report_views(rep));
  write_file(dir / "plan.json", json.str());
  write_file(dir / "plan.csv", csv.str());
  std::string note;
  const auto pngs = render_plots(dir, note);
  if (pngs.empty()) std::cerr << "collsim: warning: " << note << "\n";
  write_plan_markdown(md, rep, pngs, note);
  write_file(dir / "report.md", md.str());
  staged.commit();
}

}  // namespace

void add_plan_command(CLI::App& app, ReportOutput& output) {
  auto args = std::make_shared<PlanArgs>();
  CLI::App* cmd = app.add_subcommand("plan", "Capacity planning: step time, memory fit and cost of every cluster x workload x strategy in a plan file");
  cmd->add_option("plan", args->plan, "Plan JSON file, or the name of a shipped plan (dgx-h100-clusters)")->required();
  cmd->add_option("--format", args->format, "table, json or csv (stdout)")->capture_default_str();
  cmd->add_option("--report", args->report, "Folder for report.md, plan.json, plan.csv and PNG plots");
  cmd->add_option("--jobs", args->jobs, "Worker threads (0 = one per core); output is the same for any count")->capture_default_str();
  cmd->add_flag("--progress", args->progress, "Progress bar on stderr even when it is not a terminal");
  cmd->callback([args, &output] { run_plan_command(*args, output); });
}

}  // namespace collsim::cli
