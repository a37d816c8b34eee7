// Writes a capacity plan's results: one row per combination (candidate, workload,
// strategy, world size) with step time (ms), samples/s, strong-scaling efficiency (%),
// exposed communication (%), per-GPU memory and margin (GiB), cost per hour and per
// million samples (plan currency) and the Pareto mark, as a table, JSON or CSV; and the
// one-page markdown report (table, Pareto set, recommendations, assumptions).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "sim/plan/plan_eval.hpp"
#include "sim/report/collective_table.hpp"

namespace collsim {

struct PlanReport {
  const Plan* plan = nullptr;
  PlanResult result;
  std::vector<std::string> workload_names;  // per plan workload (as loaded)
  std::vector<bool> activations_known;      // per plan workload: the file gives activation bytes
};

// The report in each format; the views read `report`, which must outlive them.
[[nodiscard]] ReportViews plan_report_views(const PlanReport& report);

// The column names and one row's cells exactly as the table and CSV print them ("-" where
// a combination was not simulated).
[[nodiscard]] std::vector<std::string> plan_columns(const PlanReport& report);
[[nodiscard]] std::vector<std::string> plan_row_cells(const PlanReport& report, const PlanRow& row);

// What the plan assumes about slow GPUs and failures, one line each (none without them).
[[nodiscard]] std::vector<std::string> plan_assumption_lines(const Plan& plan);

// In sim/report/plan_markdown.cpp. `plots`: PNG file names written beside report.md (empty when none); `plot_note`: why
// plots are missing, printed in their place.
void write_plan_markdown(std::ostream& out, const PlanReport& report, const std::vector<std::string>& plots,
                         const std::string& plot_note);

}  // namespace collsim
