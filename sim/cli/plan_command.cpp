// `collsim plan PLAN.json`: every candidate x world size x workload x strategy of a
// capacity plan, as a table/JSON/CSV on stdout and optionally a report folder.
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "sim/cli/child_process.hpp"
#include "sim/cli/commands.hpp"
#include "sim/cli/run_control.hpp"
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
  std::string failures;  // a JSON file with one "failures" object, replacing the plan's
  RunControlArgs run;
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
  const std::string python = python_command();
  const ChildRun run = run_child({python, script.string(), dir.string()});
  if (run.spawn_error != 0 && run.spawn_error != ENOENT) {
    note = fmt::format("PNG plots not written: could not start {} ({}).", python, std::strerror(run.spawn_error));
    return {};
  }
  const int rc = run.spawn_error == ENOENT ? 127 : run.exit_code;
  const std::string& output = run.output;
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

void run_plan_command(const CLI::App& cmd, const PlanArgs& a, const WorkRunner& runner, ReportOutput& output) {
  const OutputFormat format = parse_format_option(a.format);
  Plan plan = load_plan_file(resolve_shipped_file(a.plan, "plans"));
  if (!a.failures.empty()) plan.failures = load_failures_file(a.failures);
  PlanReport rep;
  rep.plan = &plan;
  // What the results depend on: the plan file, its topologies, calibrations and workload files.
  std::vector<std::string> inputs{file_text(plan.source)};
  for (const auto& c : plan.candidates) {
    inputs.push_back(c.topology.dump());
    if (c.calibration) inputs.push_back(file_text(c.calibration_path));
  }
  if (!a.failures.empty()) inputs.push_back(file_text(a.failures));
  for (const auto& w : plan.workloads) {
    rep.workload_names.push_back(w.name);
    // Megatron rows count activations from the transformer's shape.
    rep.activations_known.push_back(!w.listed || load_workload_file(w.path).activation_bytes_per_sample().count > 0);
    inputs.push_back(file_text(w.path));
  }
  const WorkOptions options = work_options(a.run, "plan", inputs);
  WorkStats stats;
  rep.result = evaluate_plan(plan, runner, options, &stats);
  report_journal_use(a.run, stats);
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

void add_plan_command(CLI::App& app, const WorkRunner& runner, ReportOutput& output) {
  auto args = std::make_shared<PlanArgs>();
  CLI::App* cmd = app.add_subcommand("plan", "Capacity planning: step time, memory fit and cost of every cluster x workload x strategy in a plan file");
  cmd->add_option("plan", args->plan, "Plan JSON file, or the name of a shipped plan (dgx-h100-clusters)")->required();
  cmd->add_option("--format", args->format, "table, json or csv (stdout)")->capture_default_str()->configurable(false);
  cmd->add_option("--report", args->report, "Folder for report.md, plan.json, plan.csv and PNG plots")->configurable(false);
  cmd->add_option("--failures", args->failures,
                  "JSON file of one \"failures\" object (MTBFs, checkpoint, restart, steps; docs/sharding-and-planning.md): "
                  "rank clusters by expected time-to-train with failures")
      ->configurable(false);
  add_run_control_options(cmd, args->run);
  cmd->callback([cmd, args, &runner, &output] { run_plan_command(*cmd, *args, runner, output); });
}

}  // namespace collsim::cli
