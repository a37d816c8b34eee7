#include "sim/report/sweep_report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace collsim {

namespace {

using R = SweepRow;
using Best = SweepBest;

std::vector<Column<R>> sweep_row_columns(const SweepResult& result) {
  return {
      {.name = "ranks", .value = [](const R& r) { return Json(r.ranks); }, .title = "ranks", .width = 6},
      {.name = "bucket_mb", .value = [](const R& r) { return Json(r.bucket_mb); }, .title = "bucket_mb", .unit = "(MiB)",
       .width = 10, .text_format = "{:g}", .csv_format = "{:g}"},
      {.name = "buckets", .value = [](const R& r) { return Json(r.buckets); }, .title = "buckets", .width = 8},
      ms_column<R>("iteration_ms", "iteration", "(ms)", 13, [](const R& r) { return r.iteration; }, kEverywhere),
      ps_column<R>("iteration_ps", [](const R& r) { return r.iteration; }),
      ms_column<R>("communication_ms", "comm", "(ms)", 13, [](const R& r) { return r.comm_total; }, kEverywhere),
      ms_column<R>("exposed_communication_ms", "exposed", "(ms)", 13, [](const R& r) { return r.exposed_comm; }, kEverywhere),
      {.name = "overlap_percent", .value = [](const R& r) { return Json(r.overlap_percent); }, .title = "overlap",
       .unit = "(%)", .width = 9, .text_format = "{:.1f}", .csv_format = "{:.3f}"},
      {.name = "best",
       .value =
           [&result](const R& r) {
             bool best = false;
             for (const auto& b : result.best) best = best || (b.ranks == r.ranks && b.bucket_mb == r.bucket_mb);
             return Json(best ? 1 : 0);
           },
       .shown = kInCsv},
  };
}

const std::vector<Column<Best>>& best_columns() {
  static const std::vector<Column<Best>> cols{
      {.name = "ranks", .value = [](const Best& b) { return Json(b.ranks); }, .title = "ranks", .width = 6},
      {.name = "bucket_mb", .value = [](const Best& b) { return Json(b.bucket_mb); }, .title = "bucket_mb", .width = 10,
       .text_format = "{:g}"},
      {.name = "iteration_ms", .value = [](const Best& b) { return Json(b.iteration.ms()); }, .title = "iteration", .width = 13,
       .text_format = "{:.3f}"},
      {.name = "scaling_efficiency", .value = [](const Best& b) { return Json(b.scaling_efficiency); }, .title = "efficiency",
       .width = 11, .text = [](const Best& b) { return fmt::format("{:.1f}%", 100 * b.scaling_efficiency); }},
  };
  return cols;
}

void sweep_table(std::ostream& out, const SweepReport& rep) {
  const SweepResult& r = rep.result;
  fmt::print(out, "# collsim sweep: {} on {} ({}), {} {} all-reduce ({})\n", rep.workload, rep.topology, rep.device,
             rep.backend, rep.algorithm, rep.cost_method);
  write_text_table(out, sweep_row_columns(r), r.rows);
  fmt::print(out, "\n# best bucket size per world size; scaling efficiency = best iteration at {} ranks / at N\n",
             r.best.empty() ? 0 : r.best.front().ranks);
  write_text_table(out, best_columns(), r.best);
}

Json sweep_json(const SweepReport& rep) {
  const SweepResult& r = rep.result;
  return report_document({{"workload", rep.workload}, {"topology", rep.topology}, {"device", rep.device},
                          {"backend", rep.backend}, {"algorithm", rep.algorithm}, {"allreduce_cost", rep.cost_method},
                          {"collective_plays", r.collective_plays}, {"rows", json_rows(sweep_row_columns(r), r.rows)},
                          {"best", json_rows(best_columns(), r.best)}});
}

void sweep_csv(std::ostream& o, const SweepReport& r) { write_csv_table(o, sweep_row_columns(r.result), r.result.rows); }

}  // namespace

ReportViews sweep_report_views(const SweepReport& report) { return views_of(report, sweep_table, sweep_json, sweep_csv); }

}  // namespace collsim
