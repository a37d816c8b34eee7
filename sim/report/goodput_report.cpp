#include "sim/report/goodput_report.hpp"

#include <cmath>

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace collsim {

namespace {

using P = IntervalPoint;

std::string hours(double s) { return fmt::format("{:.3f} h", s / 3600); }
std::string minutes(double s) { return fmt::format("{:.2f} min", s / 60); }
std::string mtbf(double s) { return s > 0 ? fmt::format("{:g} h", s / 3600) : std::string("never"); }

std::vector<Column<P>> scan_columns(double work_s) {
  return {
      {.name = "interval_s", .value = [](const P& p) { return Json(p.interval_s); }, .title = "interval", .unit = "(min)",
       .width = 10, .text = [](const P& p) { return fmt::format("{:.2f}", p.interval_s / 60); }},
      {.name = "wall_monte_carlo_s", .value = [](const P& p) { return Json(p.mc_wall_s); }, .title = "wall (MC)",
       .unit = "(h)", .width = 12, .text = [](const P& p) { return fmt::format("{:.3f}", p.mc_wall_s / 3600); }},
      {.name = "wall_closed_form_s", .value = [](const P& p) { return Json(p.expected_wall_s); }, .title = "wall (closed)",
       .unit = "(h)", .width = 14, .text = [](const P& p) { return fmt::format("{:.3f}", p.expected_wall_s / 3600); }},
      {.name = "goodput_monte_carlo", .value = [work_s](const P& p) { return Json(work_s / p.mc_wall_s); },
       .title = "goodput", .unit = "(%)", .width = 9,
       .text = [work_s](const P& p) { return fmt::format("{:.2f}", 100 * work_s / p.mc_wall_s); }},
  };
}

void write_table(std::ostream& out, const GoodputReport& r) {
  const RunModel& m = r.model;
  const GoodputEstimate& e = r.estimate;
  fmt::print(out, "# collsim run: {} GPUs ({} hosts, {} links), {} steps of {:g} s = {} of training\n", r.gpus, r.hosts,
             r.links, m.steps, m.step_s, hours(m.work_s()));
  fmt::print(out, "# interruptions: job MTBF {} (per GPU {}, per host {}, per link {}); exponential, {} runs, seed {}\n",
             m.failure_rate > 0 ? hours(m.mtbf_s()) : std::string("infinite"), mtbf(r.mtbf_gpu_s), mtbf(r.mtbf_host_s),
             mtbf(r.mtbf_link_s), e.runs, r.seed);
  fmt::print(out, "# checkpoint every {} of training ({} steps; {}), write {}, restart {}, restore {}\n",
             minutes(static_cast<double>(m.steps_per_checkpoint()) * m.step_s), m.steps_per_checkpoint(),
             r.interval_choice, minutes(m.checkpoint_s), minutes(m.restart_s), minutes(m.restore_s));
  const double vs = 100 * (e.mean_wall_s / r.expected_wall_s - 1);
  fmt::print(out, "{:<24}{:>12}   (Monte Carlo, 95% interval +- {}; closed form {}, {:+.2f} %)\n", "expected wall time",
             hours(e.mean_wall_s), hours(e.ci95_wall_s), hours(r.expected_wall_s), vs);
  fmt::print(out, "{:<24}{:>10.2f} %   (training / wall time; closed form {:.2f} %)\n", "goodput", 100 * e.goodput,
             100 * m.work_s() / r.expected_wall_s);
  fmt::print(out, "{:<24}{:>12.2f}   per run\n", "interruptions", e.mean_failures);
  fmt::print(out, "{:<24}{:>12}   (training and checkpoints undone)\n", "lost work", hours(e.mean_lost_s));
  fmt::print(out, "{:<24}{:>12}\n", "checkpointing", hours(e.mean_checkpoint_s));
  fmt::print(out, "{:<24}{:>12}   (restarts and restores)\n", "recovery", hours(e.mean_recovery_s));
  if (!r.search) return;
  const IntervalSearch& s = *r.search;
  fmt::print(out,
             "\n# checkpoint interval: Monte Carlo optimum {}, closed-form optimum {}, Young (1974) {}, Daly (2006) {}\n",
             minutes(s.mc_optimum_s), minutes(s.expected_optimum_s), minutes(young_interval_s(m.checkpoint_s, m.mtbf_s())),
             minutes(daly_interval_s(m.checkpoint_s, m.mtbf_s())));
  write_text_table(out, scan_columns(m.work_s()), s.points);
}

Json report_json(const GoodputReport& r) {
  const RunModel& m = r.model;
  const GoodputEstimate& e = r.estimate;
  Json doc = report_document({
      {"gpus", r.gpus},
      {"hosts", r.hosts},
      {"links", r.links},
      {"step_s", m.step_s},
      {"steps", m.steps},
      {"training_s", m.work_s()},
      {"mtbf_gpu_s", r.mtbf_gpu_s > 0 ? Json(r.mtbf_gpu_s) : Json()},
      {"mtbf_host_s", r.mtbf_host_s > 0 ? Json(r.mtbf_host_s) : Json()},
      {"mtbf_link_s", r.mtbf_link_s > 0 ? Json(r.mtbf_link_s) : Json()},
      {"job_mtbf_s", m.failure_rate > 0 ? Json(m.mtbf_s()) : Json()},
      {"checkpoint_interval_s", static_cast<double>(m.steps_per_checkpoint()) * m.step_s},
      {"checkpoint_interval_steps", m.steps_per_checkpoint()},
      {"checkpoint_interval_choice", r.interval_choice},
      {"checkpoint_write_s", m.checkpoint_s},
      {"restart_s", m.restart_s},
      {"restore_s", m.restore_s},
      {"runs", e.runs},
      {"seed", r.seed},
      {"wall_s", e.mean_wall_s},
      {"wall_stddev_s", e.stddev_wall_s},
      {"wall_ci95_s", e.ci95_wall_s},
      {"wall_closed_form_s", r.expected_wall_s},
      {"goodput", e.goodput},
      {"goodput_closed_form", m.work_s() / r.expected_wall_s},
      {"interruptions", e.mean_failures},
      {"lost_s", e.mean_lost_s},
      {"checkpointing_s", e.mean_checkpoint_s},
      {"recovery_s", e.mean_recovery_s},
  });
  if (r.search) {
    const IntervalSearch& s = *r.search;
    doc["interval_search"] = {{"monte_carlo_optimum_s", s.mc_optimum_s},
                              {"closed_form_optimum_s", s.expected_optimum_s},
                              {"young_s", young_interval_s(m.checkpoint_s, m.mtbf_s())},
                              {"daly_s", daly_interval_s(m.checkpoint_s, m.mtbf_s())},
                              {"points", json_rows(scan_columns(m.work_s()), s.points)}};
  }
  return doc;
}

void write_csv(std::ostream& out, const GoodputReport& r) {
  const std::vector<P> none;
  write_csv_table(out, scan_columns(r.model.work_s()), r.search ? r.search->points : none);
}

}  // namespace

ReportViews goodput_report_views(const GoodputReport& report) { return views_of(report, write_table, report_json, write_csv); }

}  // namespace collsim
