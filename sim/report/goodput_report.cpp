#include "sim/report/goodput_report.hpp"

#include <cmath>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "sim/report/run_report_parts.hpp"

namespace collsim {

namespace {

using ScanPoint = IntervalPoint;  // one point of the interval scan

std::string mtbf(double s) { return s > 0 ? fmt::format("{:g} h", s / 3600) : std::string("never"); }

std::vector<Column<ScanPoint>> goodput_scan_columns(double work_s) {
  return {
      {.name = "interval_s", .value = [](const ScanPoint& p) { return Json(p.interval_s); }, .title = "interval", .unit = "(min)",
       .width = 10, .text = [](const ScanPoint& p) { return fmt::format("{:.2f}", p.interval_s / 60); }},
      {.name = "wall_monte_carlo_s", .value = [](const ScanPoint& p) { return Json(p.mc_wall_s); }, .title = "wall (MC)",
       .unit = "(h)", .width = 12, .text = [](const ScanPoint& p) { return fmt::format("{:.3f}", p.mc_wall_s / 3600); }},
      {.name = "wall_closed_form_s", .value = [](const ScanPoint& p) { return Json(p.expected_wall_s); }, .title = "wall (closed)",
       .unit = "(h)", .width = 14, .text = [](const ScanPoint& p) { return fmt::format("{:.3f}", p.expected_wall_s / 3600); }},
      {.name = "goodput_monte_carlo", .value = [work_s](const ScanPoint& p) { return Json(work_s / p.mc_wall_s); },
       .title = "goodput", .unit = "(%)", .width = 9,
       .text = [work_s](const ScanPoint& p) { return fmt::format("{:.2f}", 100 * work_s / p.mc_wall_s); }},
  };
}

void goodput_table(std::ostream& out, const GoodputReport& r) {
  const RunModel& m = r.model;
  const GoodputEstimate& e = r.estimate;
  write_run_heading(out, r.gpus, r.hosts, r.links, m);
  fmt::print(out, "# interruptions: job MTBF {} (per GPU {}, per host {}, per link {}); exponential, {} runs, seed {}\n",
             m.failure_rate > 0 ? hours(m.mtbf_s()) : std::string("infinite"), mtbf(r.mtbf_gpu_s), mtbf(r.mtbf_host_s),
             mtbf(r.mtbf_link_s), e.runs, r.seed);
  write_checkpoint_line(out, m, r.interval_choice);
  const double vs = 100 * (e.mean_wall_s / r.expected_wall_s - 1);
  fmt::print(out, "{:<24}{:>12}   (Monte Carlo, 95% interval +- {}; closed form {}, {:+.2f} %)\n", "expected wall time",
             hours(e.mean_wall_s), hours(e.ci95_wall_s), hours(r.expected_wall_s), vs);
  fmt::print(out, "{:<24}{:>10.2f} %   (training / wall time; closed form {:.2f} %)\n", "goodput", 100 * e.goodput,
             100 * m.work_s() / r.expected_wall_s);
  fmt::print(out, "{:<24}{:>12.2f}   per run\n", "interruptions", e.mean_failures);
  write_time_lost(out, e.mean_lost_s, e.mean_checkpoint_s, e.mean_recovery_s);
  if (!r.search) return;
  const IntervalSearch& s = *r.search;
  fmt::print(out,
             "\n# checkpoint interval: Monte Carlo optimum {}, closed-form optimum {}, Young (1974) {}, Daly (2006) {}\n",
             minutes(s.mc_optimum_s), minutes(s.expected_optimum_s), minutes(young_interval_s(m.checkpoint_s, m.mtbf_s())),
             minutes(daly_interval_s(m.checkpoint_s, m.mtbf_s())));
  write_text_table(out, goodput_scan_columns(m.work_s()), s.points);
}

Json goodput_json(const GoodputReport& r) {
  const RunModel& m = r.model;
  const GoodputEstimate& e = r.estimate;
  Json doc = report_document({});
  add_run_fields(doc, r.gpus, r.hosts, r.links, m);
  doc["mtbf_gpu_s"] = r.mtbf_gpu_s > 0 ? Json(r.mtbf_gpu_s) : Json();
  doc["mtbf_host_s"] = r.mtbf_host_s > 0 ? Json(r.mtbf_host_s) : Json();
  doc["mtbf_link_s"] = r.mtbf_link_s > 0 ? Json(r.mtbf_link_s) : Json();
  doc["job_mtbf_s"] = m.failure_rate > 0 ? Json(m.mtbf_s()) : Json();
  add_checkpoint_fields(doc, m, r.interval_choice);
  doc["runs"] = e.runs;
  doc["seed"] = r.seed;
  doc["wall_s"] = e.mean_wall_s;
  doc["wall_stddev_s"] = e.stddev_wall_s;
  doc["wall_ci95_s"] = e.ci95_wall_s;
  doc["wall_closed_form_s"] = r.expected_wall_s;
  doc["goodput"] = e.goodput;
  doc["goodput_closed_form"] = m.work_s() / r.expected_wall_s;
  doc["interruptions"] = e.mean_failures;
  add_time_lost(doc, e.mean_lost_s, e.mean_checkpoint_s, e.mean_recovery_s);
  if (r.search) {
    const IntervalSearch& s = *r.search;
    doc["interval_search"] = {{"monte_carlo_optimum_s", s.mc_optimum_s},
                              {"closed_form_optimum_s", s.expected_optimum_s},
                              {"young_s", young_interval_s(m.checkpoint_s, m.mtbf_s())},
                              {"daly_s", daly_interval_s(m.checkpoint_s, m.mtbf_s())},
                              {"points", json_rows(goodput_scan_columns(m.work_s()), s.points)}};
  }
  return doc;
}

void goodput_csv(std::ostream& out, const GoodputReport& r) {
  const std::vector<ScanPoint> none;
  write_csv_table(out, goodput_scan_columns(r.model.work_s()), r.search ? r.search->points : none);
}

}  // namespace

ReportViews goodput_report_views(const GoodputReport& report) { return views_of(report, goodput_table, goodput_json, goodput_csv); }

}  // namespace collsim
